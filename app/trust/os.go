package trust

import "runtime"

// isWindows: Chmod of a temporary file only sets the read-only bit there;
// the file's folder (the user's state directory) keeps it to its user.
var isWindows = runtime.GOOS == "windows"
