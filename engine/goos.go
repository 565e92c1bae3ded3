package engine

import "runtime"

// goosName is the OS the engine resolves and builds environments for.
const goosName = runtime.GOOS
