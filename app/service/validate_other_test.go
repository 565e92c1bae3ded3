//go:build !linux

package service

import "testing"

// validateDesktop runs desktop-file-validate, on Linux only.
func validateDesktop(*testing.T, string) {}
