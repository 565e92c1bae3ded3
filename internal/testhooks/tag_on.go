//go:build switchboard_testhooks

package testhooks

// tagged: built with switchboard_testhooks.
const tagged = true
