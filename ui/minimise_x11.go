//go:build (linux || freebsd || netbsd || openbsd) && cgo && !ci && !wayland

package ui

/*
#cgo LDFLAGS: -lX11
#include <stdlib.h>
#include <X11/Xlib.h>

// iconify asks the window manager to minimise window (XIconifyWindow: a
// WM_CHANGE_STATE message to the root window) on a connection of its
// own; 0 when no display could be opened or the request failed.
static int iconify(unsigned long window) {
	Display *d = XOpenDisplay(NULL);
	if (d == NULL) {
		return 0;
	}
	int ok = XIconifyWindow(d, (Window)window, DefaultScreen(d));
	XSync(d, False);
	XCloseDisplay(d);
	return ok;
}
*/
import "C"

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver"
)

// minimise minimises the app's shown windows titled title, where the
// desktop allows it: an X11 window (XWayland included) with a window
// manager that honours WM_CHANGE_STATE. Elsewhere the window stays as
// shown. It runs on the UI goroutine, after the window was shown.
func minimise(a fyne.App, title string) {
	for _, w := range a.Driver().AllWindows() {
		nw, ok := w.(driver.NativeWindow)
		if !ok || w.Title() != title {
			continue
		}
		nw.RunNative(func(ctx any) {
			if x, ok := ctx.(driver.X11WindowContext); ok && x.WindowHandle != 0 {
				C.iconify(C.ulong(x.WindowHandle))
			}
		})
	}
}
