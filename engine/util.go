package engine

import (
	"strconv"
	"time"
)

func itoa(i int) string { return strconv.Itoa(i) }

func sleepPoll() { time.Sleep(20 * time.Millisecond) }
