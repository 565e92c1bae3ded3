//go:build windows

package sandbox

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"unsafe"

	"golang.org/x/sys/windows"
)

// The AppContainer calls of userenv.dll, which golang.org/x/sys/windows
// does not wrap.
var (
	userenv                                               = windows.NewLazySystemDLL("userenv.dll")
	procCreateAppContainerProfile                         = userenv.NewProc("CreateAppContainerProfile")
	procDeriveAppContainerSidFromAppContainerName         = userenv.NewProc("DeriveAppContainerSidFromAppContainerName")
	errAppContainerUnavailable                            = errors.New("this Windows has no AppContainer profiles (userenv.dll lacks CreateAppContainerProfile)")
	hresultAlreadyExists                          uintptr = 0x800700b7 // HRESULT_FROM_WIN32(ERROR_ALREADY_EXISTS)
)

// procThreadAttributeSecurityCapabilities is
// PROC_THREAD_ATTRIBUTE_SECURITY_CAPABILITIES (winbase.h).
const procThreadAttributeSecurityCapabilities = 0x00020009

// securityCapabilities is SECURITY_CAPABILITIES (winnt.h): the container
// and its capabilities, for CreateProcess's attribute list.
type securityCapabilities struct {
	AppContainerSid *windows.SID
	Capabilities    *windows.SIDAndAttributes
	CapabilityCount uint32
	Reserved        uint32
}

// ensureAppContainer creates the plan's AppContainer profile, or finds it
// when it exists, and returns its SID (free it with windows.FreeSid).
// It has been compiled for Windows and run under Wine only: see
// docs/sandbox.md for what Wine does with it.
func ensureAppContainer(plan *AppContainerPlan) (*windows.SID, error) {
	if plan == nil {
		return nil, errors.New("sandbox: no AppContainer plan (the policy is off)")
	}
	if err := procCreateAppContainerProfile.Find(); err != nil {
		return nil, errAppContainerUnavailable
	}
	name, err := windows.UTF16PtrFromString(plan.Name)
	if err != nil {
		return nil, err
	}
	display, err := windows.UTF16PtrFromString(plan.DisplayName)
	if err != nil {
		return nil, err
	}
	var sid *windows.SID
	hr, _, _ := procCreateAppContainerProfile.Call(uintptr(unsafe.Pointer(name)), uintptr(unsafe.Pointer(display)),
		uintptr(unsafe.Pointer(display)), 0, 0, uintptr(unsafe.Pointer(&sid)))
	if uint32(hr) == uint32(hresultAlreadyExists) {
		if err := procDeriveAppContainerSidFromAppContainerName.Find(); err != nil {
			return nil, errAppContainerUnavailable
		}
		hr, _, _ = procDeriveAppContainerSidFromAppContainerName.Call(uintptr(unsafe.Pointer(name)), uintptr(unsafe.Pointer(&sid)))
	}
	if uint32(hr) != 0 {
		return nil, fmt.Errorf("creating the AppContainer profile %s: HRESULT 0x%08x", plan.Name, uint32(hr))
	}
	return sid, nil
}

// grantPaths adds the plan's grants to each path's DACL for sid, inherited
// by what a directory holds (SetNamedSecurityInfo, merged with the ACL the
// path has). A path that does not exist is an error naming it.
func grantPaths(sid *windows.SID, grants []Grant) error {
	for _, g := range grants {
		sd, err := windows.GetNamedSecurityInfo(g.Path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
		if err != nil {
			return fmt.Errorf("reading the permissions of %s to open it to the sandbox: %w", g.Path, err)
		}
		old, _, err := sd.DACL()
		if err != nil {
			return fmt.Errorf("reading the permissions of %s: %w", g.Path, err)
		}
		acl, err := windows.ACLFromEntries([]windows.EXPLICIT_ACCESS{{
			AccessPermissions: windows.ACCESS_MASK(g.Access),
			AccessMode:        windows.GRANT_ACCESS,
			Inheritance:       windows.SUB_CONTAINERS_AND_OBJECTS_INHERIT,
			Trustee: windows.TRUSTEE{
				TrusteeForm:  windows.TRUSTEE_IS_SID,
				TrusteeType:  windows.TRUSTEE_IS_WELL_KNOWN_GROUP,
				TrusteeValue: windows.TrusteeValueFromSID(sid),
			},
		}}, old)
		if err != nil {
			return fmt.Errorf("adding the sandbox's access to %s: %w", g.Path, err)
		}
		if err := windows.SetNamedSecurityInfo(g.Path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION, nil, nil, acl, nil); err != nil {
			return fmt.Errorf("opening %s to the sandbox (SetNamedSecurityInfo): %w", g.Path, err)
		}
	}
	return nil
}

// AppContainerAttributes returns a thread attribute list that starts a
// process inside the container sid with the plan's capabilities
// (PROC_THREAD_ATTRIBUTE_SECURITY_CAPABILITIES) and, when handles is not
// empty, lets it inherit those handles only (PROC_THREAD_ATTRIBUTE_HANDLE_LIST),
// for a CreateProcess with EXTENDED_STARTUPINFO_PRESENT. Call the returned
// release after the process is created.
func AppContainerAttributes(plan *AppContainerPlan, sid *windows.SID, handles []windows.Handle) (*windows.ProcThreadAttributeListContainer, func(), error) {
	caps := make([]windows.SIDAndAttributes, 0, len(plan.Capabilities))
	for _, c := range plan.Capabilities {
		s, err := windows.StringToSid(c)
		if err != nil {
			return nil, nil, fmt.Errorf("capability %s: %w", c, err)
		}
		caps = append(caps, windows.SIDAndAttributes{Sid: s, Attributes: windows.SE_GROUP_ENABLED})
	}
	sc := &securityCapabilities{AppContainerSid: sid, CapabilityCount: uint32(len(caps))}
	if len(caps) > 0 {
		sc.Capabilities = &caps[0]
	}
	n := uint32(1)
	if len(handles) > 0 {
		n = 2
	}
	al, err := windows.NewProcThreadAttributeList(n)
	if err != nil {
		return nil, nil, err
	}
	if err := al.Update(procThreadAttributeSecurityCapabilities, unsafe.Pointer(sc), unsafe.Sizeof(*sc)); err != nil {
		al.Delete()
		return nil, nil, fmt.Errorf("PROC_THREAD_ATTRIBUTE_SECURITY_CAPABILITIES: %w", err)
	}
	if len(handles) > 0 {
		if err := al.Update(windows.PROC_THREAD_ATTRIBUTE_HANDLE_LIST, unsafe.Pointer(&handles[0]), uintptr(len(handles))*unsafe.Sizeof(handles[0])); err != nil {
			al.Delete()
			return nil, nil, fmt.Errorf("PROC_THREAD_ATTRIBUTE_HANDLE_LIST: %w", err)
		}
	}
	// sc, caps and handles must live until CreateProcess has read them.
	return al, func() { al.Delete(); runtime.KeepAlive(sc); runtime.KeepAlive(caps); runtime.KeepAlive(handles) }, nil
}

// startInAppContainer creates the process cmdLine (its executable app)
// suspended, inside the plan's container, with std handles in, out and
// errw (inheritable; the only handles it inherits), and returns it: the caller puts it in its job object and resumes
// its thread, as the engine does for every server. This is the call path
// the engine will take for a sandboxed server on Windows; it is not wired
// into engine.Start yet (docs/sandbox.md): a server whose sandbox is "off"
// never reaches it.
func startInAppContainer(plan *AppContainerPlan, sid *windows.SID, app, cmdLine, dir string, env []uint16, in, out, errw windows.Handle) (*windows.ProcessInformation, error) {
	var inherit []windows.Handle
	for _, h := range []windows.Handle{in, out, errw} {
		if h != 0 && !slices.Contains(inherit, h) {
			inherit = append(inherit, h)
		}
	}
	al, release, err := AppContainerAttributes(plan, sid, inherit)
	if err != nil {
		return nil, err
	}
	defer release()
	appP, err := windows.UTF16PtrFromString(app)
	if err != nil {
		return nil, err
	}
	cmdP, err := windows.UTF16PtrFromString(cmdLine)
	if err != nil {
		return nil, err
	}
	var dirP *uint16
	if dir != "" {
		if dirP, err = windows.UTF16PtrFromString(dir); err != nil {
			return nil, err
		}
	}
	var envP *uint16
	if len(env) > 0 {
		envP = &env[0]
	}
	si := &windows.StartupInfoEx{ProcThreadAttributeList: al.List()}
	si.Cb = uint32(unsafe.Sizeof(*si))
	si.Flags = windows.STARTF_USESTDHANDLES
	si.StdInput, si.StdOutput, si.StdErr = in, out, errw
	pi := new(windows.ProcessInformation)
	flags := uint32(windows.CREATE_SUSPENDED | windows.CREATE_NO_WINDOW | windows.CREATE_UNICODE_ENVIRONMENT | windows.EXTENDED_STARTUPINFO_PRESENT)
	if err := windows.CreateProcess(appP, cmdP, nil, nil, len(inherit) > 0, flags, envP, dirP, &si.StartupInfo, pi); err != nil {
		return nil, fmt.Errorf("starting %s in the AppContainer %s: %w", app, plan.Name, err)
	}
	return pi, nil
}
