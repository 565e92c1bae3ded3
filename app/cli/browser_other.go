//go:build !windows && !darwin

package cli

import "os/exec"

// openBrowser opens a page in the desktop's browser, if there is one.
func openBrowser(u string) error {
	p, err := exec.LookPath("xdg-open")
	if err != nil {
		return err
	}
	cmd := exec.Command(p, u)
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}
