//go:build darwin

package cli

import "os/exec"

// openBrowser opens a page in the default browser.
func openBrowser(u string) error {
	cmd := exec.Command("/usr/bin/open", u)
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}
