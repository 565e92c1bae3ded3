//go:build !windows

package service

import "errors"

// registryRunKey exists only on Windows.
type registryRunKey struct{}

var errNoRegistry = errors.New("the Windows registry exists only on Windows")

func (registryRunKey) Get(string) (string, bool, error) { return "", false, errNoRegistry }
func (registryRunKey) Set(string, string) error         { return errNoRegistry }
func (registryRunKey) Delete(string) error              { return errNoRegistry }
