//go:build windows

package cli

import "os/exec"

// openBrowser opens a page in the default browser.
func openBrowser(u string) error {
	cmd := exec.Command("rundll32", "url.dll,FileProtocolHandler", u)
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}
