package config

import (
	"fmt"
	"io"
	"io/fs"
)

// MaxFileSize bounds the config file: far more than any set of servers
// needs (a hundred entries take some 30 KB), and small enough that a
// mistaken or hostile file cannot take the host's memory.
const MaxFileSize = 4 << 20

// readFile reads the config file at path, following a symbolic link.
// Anything but a regular file (a FIFO, a device such as /dev/zero, a
// directory) is refused without being read, and so is a file larger than
// MaxFileSize. The open does not block (a FIFO with no writer would hang
// it; see openNoBlock). A missing file is the error of [os.Open]
// (fs.ErrNotExist).
func readFile(path string) ([]byte, error) {
	f, err := openNoBlock(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &FileError{Path: path, Msg: fmt.Sprintf("is not a regular file (%s): make it a JSON file, or a symbolic link to one", kindOf(st.Mode()))}
	}
	if st.Size() > MaxFileSize {
		return nil, &FileError{Path: path, Msg: tooBig(st.Size())}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize { // it grew while being read
		return nil, &FileError{Path: path, Msg: tooBig(int64(len(data)))}
	}
	return data, nil
}

func tooBig(n int64) string {
	return fmt.Sprintf("is %.1f MiB, over the limit of %d MiB: a config file of servers is a few KB; check what wrote it, or keep only the mcpServers entries", float64(n)/(1<<20), MaxFileSize>>20)
}

// kindOf names a file type that is not a regular file.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "type " + m.Type().String()
}

// FileError is a config file that cannot be read as one: not a regular
// file, or too large. Error names the file, what is wrong and the remedy.
type FileError struct {
	Path string
	Msg  string
}

func (e *FileError) Error() string { return e.Path + ": " + e.Msg }
