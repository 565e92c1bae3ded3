//go:build windows

package engine

import (
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// osProc is the OS side of a running server on Windows: the server and
// every process it starts live in a Job Object created with
// JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE. Only the host holds the job's
// handle, so when the host exits, even killed, Windows closes the handle
// and ends the whole tree; TerminateJobObject ends it on demand.
type osProc struct {
	cmd   *exec.Cmd
	pid   int
	token string // the value of TokenEnv in the server's environment (the job finds the tree)
	start uint64
	proc  windows.Handle // the server's main process, opened by pid while it was suspended
	job   windows.Handle

	waitOnce    sync.Once
	status      ExitStatus // once waitOnce is done
	releaseOnce sync.Once
	releaseErr  error
}

// prepareOS creates the server suspended, so that it runs no code before
// it is in its job, and without a console window. For a batch file it
// passes the exact cmd.exe command line the resolver built.
func prepareOS(cmd *exec.Cmd, l *Launch) {
	cmd.SysProcAttr = &syscall.SysProcAttr{
		CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NO_WINDOW,
	}
	if l != nil && l.CmdLine != "" {
		cmd.SysProcAttr.CmdLine = l.CmdLine
	}
}

// procRights are what the engine needs on the server's main process: put it
// in a job (SET_QUOTA and TERMINATE), wait for it, read its exit code and
// times.
const procRights = windows.PROCESS_SET_QUOTA | windows.PROCESS_TERMINATE | windows.SYNCHRONIZE |
	windows.PROCESS_QUERY_LIMITED_INFORMATION

// startOS creates the job, starts cmd suspended, assigns it to the job
// before it runs any code, and only then resumes its main thread.
func startOS(cmd *exec.Cmd) (*osProc, error) {
	job, err := newKillOnCloseJob()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		windows.CloseHandle(job)
		return nil, err
	}
	pid := cmd.Process.Pid
	// abort ends the suspended child, which has run no code of its own.
	abort := func(h windows.Handle, what string, cause error) (*osProc, error) {
		if h != 0 {
			_ = windows.TerminateProcess(h, 1)
			windows.CloseHandle(h)
		} else {
			_ = cmd.Process.Kill()
		}
		_ = cmd.Wait()
		windows.CloseHandle(job) // kills it too, if it got into the job
		return nil, fmt.Errorf("%s (the suspended process %d was terminated before it ran): %w", what, pid, cause)
	}
	h, err := windows.OpenProcess(procRights, false, uint32(pid))
	if err != nil {
		return abort(0, "cannot open the new process to put it in a job object", err)
	}
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		return abort(h, "cannot assign the new process to its job object, which would end its process tree with the app", err)
	}
	if err := resumeProcess(uint32(pid)); err != nil {
		return abort(h, "cannot resume the new process's main thread", err)
	}
	return &osProc{cmd: cmd, pid: pid, proc: h, job: job}, nil
}

// newKillOnCloseJob creates an unnamed, non-inheritable job object that
// kills its processes when its last handle is closed. It never allows
// breakaway: a member cannot start a process outside it.
func newKillOnCloseJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("creating a job object: %w", err)
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("setting JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE on a job object: %w", err)
	}
	return job, nil
}

// resumeProcess resumes the threads of a process created suspended: Go
// does not expose the main thread's handle, so they are found in a thread
// snapshot. A suspended new process has exactly one thread.
func resumeProcess(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("thread snapshot: %w", err)
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return fmt.Errorf("opening thread %d: %w", te.ThreadID, err)
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("resuming thread %d: %w", te.ThreadID, err)
		}
		resumed++
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return fmt.Errorf("walking the thread snapshot: %w", err)
	}
	if resumed == 0 {
		return errors.New("no thread of the process was found")
	}
	return nil
}

// terminate returns false: Windows has no SIGTERM for console programs
// without a console, so the ladder goes from closing stdin to kill.
func (o *osProc) terminate() bool { return false }

// kill ends every process of the job. Should that fail, taskkill ends the
// tree by parent pid (a weaker fallback: it misses orphaned grandchildren,
// which the job still kills when the host closes it).
func (o *osProc) kill() {
	if err := windows.TerminateJobObject(o.job, 1); err == nil {
		return
	}
	// taskkill first: it finds the children by their parent's pid, which
	// must still be running for that.
	taskkill := "taskkill.exe"
	if dir, err := windows.GetSystemDirectory(); err == nil {
		taskkill = dir + `\taskkill.exe`
	}
	_ = exec.Command(taskkill, "/T", "/F", "/PID", strconv.Itoa(o.pid)).Run()
	_ = windows.TerminateProcess(o.proc, 1)
}

// waitExit blocks until the main process exits and returns its exit code.
// Windows has no signals: a killed server reports the exit code it was
// terminated with (1).
// Safe to call more than once: every caller gets the same status.
func (o *osProc) waitExit() ExitStatus {
	o.waitOnce.Do(func() {
		if _, err := windows.WaitForSingleObject(o.proc, windows.INFINITE); err != nil {
			return
		}
		var code uint32
		if err := windows.GetExitCodeProcess(o.proc, &code); err != nil {
			return
		}
		o.status = ExitStatus{Exited: true, Code: int(code)}
	})
	return o.status
}

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type jobAccounting struct {
	TotalUserTime             int64
	TotalKernelTime           int64
	ThisPeriodTotalUserTime   int64
	ThisPeriodTotalKernelTime int64
	TotalPageFaultCount       uint32
	TotalProcesses            uint32
	ActiveProcesses           uint32
	TotalTerminatedProcesses  uint32
}

// treeAlive reports whether any process of the job still runs. If the job
// cannot be queried it falls back to the main process alone.
func (o *osProc) treeAlive() bool {
	var info jobAccounting
	err := windows.QueryInformationJobObject(o.job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil)
	if err != nil {
		ev, err := windows.WaitForSingleObject(o.proc, 0)
		return err == nil && ev == uint32(windows.WAIT_TIMEOUT)
	}
	return info.ActiveProcesses > 0
}

// release reaps the main process and closes the process and job handles.
// Closing the job's last handle kills whatever is still in it. Like the
// Unix release it blocks until the main process has exited; the process
// handle is closed only after waitExit is done with it.
func (o *osProc) release() error {
	o.releaseOnce.Do(func() {
		o.waitExit()
		err := o.cmd.Wait()
		if _, ok := err.(*exec.ExitError); ok {
			err = nil // the status was reported by waitExit
		}
		windows.CloseHandle(o.proc)
		if cerr := windows.CloseHandle(o.job); err == nil && cerr != nil {
			err = fmt.Errorf("closing the job object: %w", cerr)
		}
		o.releaseErr = err
	})
	return o.releaseErr
}

// procStat identifies a process beside its pid: its creation time.
type procStat struct {
	pid   int
	start uint64
}

// survivors returns nil on Windows: the job object kills the whole tree
// when the host dies, so nothing survives to sweep.
func survivors(Identity) []procStat { return nil }

// killSurvivor terminates a process if it is still the one recorded (same
// creation time).
func killSurvivor(st procStat) error {
	h, err := windows.OpenProcess(windows.PROCESS_TERMINATE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(st.pid))
	if err != nil {
		if errors.Is(err, windows.ERROR_INVALID_PARAMETER) {
			return nil // gone
		}
		return err
	}
	defer windows.CloseHandle(h)
	if handleStart(h) != st.start {
		return nil // the pid was reused
	}
	return windows.TerminateProcess(h, 1)
}

// procStart returns a process's creation time (100 ns units since 1601),
// its identity beside its pid; 0 if it cannot be read.
func procStart(pid int) uint64 {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return 0
	}
	defer windows.CloseHandle(h)
	return handleStart(h)
}

func handleStart(h windows.Handle) uint64 {
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return 0
	}
	return uint64(created.HighDateTime)<<32 | uint64(created.LowDateTime)
}

// timeOfDay is SYSTEM_TIMEOFDAY_INFORMATION.
type timeOfDay struct {
	BootTime      int64
	CurrentTime   int64
	TimeZoneBias  int64
	TimeZoneID    uint32
	Reserved      uint32
	BootTimeBias  uint64
	SleepTimeBias uint64
}

// bootID tells one boot from another: the system's boot time, to the
// second.
func bootID() string {
	var t timeOfDay
	if err := windows.NtQuerySystemInformation(windows.SystemTimeOfDayInformation, unsafe.Pointer(&t), uint32(unsafe.Sizeof(t)), nil); err != nil || t.BootTime == 0 {
		return ""
	}
	const ticksPerSecond = 10_000_000 // BootTime counts 100 ns
	return strconv.FormatInt(t.BootTime/ticksPerSecond, 10)
}
