package testkit

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// Masked holds a value XORed with a random mask, so that the value itself
// is nowhere in memory until Reveal makes it: the stand-in for a secret
// that lives in another process (a keyring), and the needle of CountInMemory.
type Masked struct {
	mask, masked []byte
}

// NewMasked masks value and zeroes it.
func NewMasked(value []byte, mask []byte) *Masked {
	m := &Masked{mask: append([]byte(nil), mask...), masked: make([]byte, len(value))}
	for i := range value {
		m.masked[i] = value[i] ^ m.mask[i%len(m.mask)]
		value[i] = 0
	}
	return m
}

// Len is the value's length.
func (m *Masked) Len() int { return len(m.masked) }

// Reveal returns a new slice holding the value.
func (m *Masked) Reveal() []byte {
	out := make([]byte, len(m.masked))
	for i := range out {
		out[i] = m.masked[i] ^ m.mask[i%len(m.mask)]
	}
	return out
}

func (m *Masked) at(i int) byte { return m.masked[i] ^ m.mask[i%len(m.mask)] }

// CountInMemory counts the copies of m's value in this process's memory:
// every readable mapping of /proc/self/maps, read through /proc/self/mem,
// the freed parts of the Go heap included. The value is never unmasked
// while it scans, and the scan's buffer is mapped outside the Go heap and
// skipped, so the scan itself adds no copy. Linux only.
func CountInMemory(m *Masked) (int, error) {
	n := m.Len()
	if n == 0 {
		return 0, fmt.Errorf("empty needle")
	}
	const chunk = 1 << 20
	buf, err := syscall.Mmap(-1, 0, chunk+n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return 0, err
	}
	defer syscall.Munmap(buf)
	bufStart := uint64(uintptrOf(buf))
	bufEnd := bufStart + uint64(len(buf))

	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return 0, err
	}
	mem, err := os.Open("/proc/self/mem")
	if err != nil {
		return 0, err
	}
	defer mem.Close()
	first := m.at(0)
	count := 0
	sc := bufio.NewScanner(bytes.NewReader(maps))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || f[1][0] != 'r' {
			continue
		}
		if len(f) >= 6 && (f[5] == "[vvar]" || f[5] == "[vsyscall]" || f[5] == "[vvar_vclock]") {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || (start < bufEnd && end > bufStart) {
			continue
		}
		carry := 0 // bytes kept from the previous chunk, for a match across chunks
		for off := start; off < end; {
			want := uint64(chunk)
			if end-off < want {
				want = end - off
			}
			got, err := mem.ReadAt(buf[carry:carry+int(want)], int64(off))
			if got <= 0 || err != nil && got == 0 {
				break
			}
			data := buf[:carry+got]
			// bytes.IndexByte finds the candidates: a loop over every
			// byte in Go is instrumented byte by byte under -race, which
			// made one scan take seconds and the test minutes on a busy
			// machine.
			for i := 0; i+n <= len(data); i++ {
				k := bytes.IndexByte(data[i:len(data)-n+1], first)
				if k < 0 {
					break
				}
				i += k
				j := 1
				for j < n && data[i+j] == m.at(j) {
					j++
				}
				if j == n {
					count++
				}
			}
			// keep the last n-1 bytes (not a whole match) for the next chunk
			keep := n - 1
			if keep > len(data) {
				keep = len(data)
			}
			copy(buf, data[len(data)-keep:])
			carry = keep
			off += uint64(got)
		}
		clear(buf)
	}
	return count, sc.Err()
}

func uintptrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

// Equal reports whether b holds m's value, without unmasking it.
func (m *Masked) Equal(b []byte) bool {
	if len(b) != len(m.masked) {
		return false
	}
	for i := range b {
		if b[i] != m.at(i) {
			return false
		}
	}
	return true
}
