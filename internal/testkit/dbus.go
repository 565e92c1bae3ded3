package testkit

import "fmt"

// BusConfig returns the configuration of a private session bus that
// listens in dir and has no service directories: nothing is started by
// D-Bus activation, a test starts what it wants itself.
func BusConfig(dir string) []byte {
	return fmt.Appendf(nil, busConfig, dir)
}

const busConfig = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <keep_umask/>
  <listen>unix:dir=%s</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`
