//go:build darwin

package engine

import "golang.org/x/sys/unix"

func readProc(pid int) (procInfo, bool) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || kp.Proc.P_pid != int32(pid) {
		return procInfo{}, false
	}
	st := procInfo{State: 'S', PPid: int(kp.Eproc.Ppid), Pgrp: int(kp.Eproc.Pgid)}
	if kp.Proc.P_stat == 5 { // SZOMB
		st.State = 'Z'
	}
	tv := kp.Proc.P_starttime
	st.Start = uint64(tv.Sec)*1e6 + uint64(tv.Usec)
	return st, true
}

func liveGroupMembers(pgid int) []int {
	kps, err := unix.SysctlKinfoProcSlice("kern.proc.pgrp", pgid)
	if err != nil {
		return nil
	}
	var out []int
	for _, kp := range kps {
		if kp.Proc.P_stat != 5 && kp.Eproc.Pgid == int32(pgid) {
			out = append(out, int(kp.Proc.P_pid))
		}
	}
	return out
}
