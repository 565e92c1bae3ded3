//go:build !linux

package stdio

// GrowPipe does nothing here (pipe capacities are Linux's F_SETPIPE_SZ).
func GrowPipe(any) {}
