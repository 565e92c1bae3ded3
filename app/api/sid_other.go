//go:build !windows

package api

import "errors"

// currentUserSID exists only on Windows.
func currentUserSID() (string, error) { return "", errors.New("no SIDs outside Windows") }
