//go:build !switchboard_testhooks

package testhooks

// tagged: the shipped build.
const tagged = false
