//go:build windows

package service

import (
	"errors"

	"golang.org/x/sys/windows/registry"
)

// registryRunKey is HKEY_CURRENT_USER\Software\Microsoft\Windows\CurrentVersion\Run,
// or another key under HKEY_CURRENT_USER (tests).
type registryRunKey struct{ key string }

func (r registryRunKey) path() string {
	if r.key == "" {
		return RunKey
	}
	return r.key
}

func (r registryRunKey) Get(name string) (string, bool, error) {
	k, err := registry.OpenKey(registry.CURRENT_USER, r.path(), registry.QUERY_VALUE)
	if errors.Is(err, registry.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	defer k.Close()
	v, _, err := k.GetStringValue(name)
	if errors.Is(err, registry.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return v, true, nil
}

func (r registryRunKey) Set(name, data string) error {
	k, _, err := registry.CreateKey(registry.CURRENT_USER, r.path(), registry.SET_VALUE)
	if err != nil {
		return err
	}
	defer k.Close()
	return k.SetStringValue(name, data)
}

func (r registryRunKey) Delete(name string) error {
	k, err := registry.OpenKey(registry.CURRENT_USER, r.path(), registry.SET_VALUE)
	if errors.Is(err, registry.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer k.Close()
	if err := k.DeleteValue(name); err != nil && !errors.Is(err, registry.ErrNotExist) {
		return err
	}
	return nil
}
