// Command probe prints whether a program built like this one honours the
// test switches, and what it reads of $SWITCHBOARD_LANDLOCK_ABI
// (testhooks_test.go builds it with and without the tag).
package main

import (
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/testhooks"
)

func main() {
	v, ok := testhooks.LookupEnv("SWITCHBOARD_LANDLOCK_ABI")
	fmt.Printf("%v %q %v\n", testhooks.Enabled(), v, ok)
}
