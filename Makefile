# Switchboard's builds and packages. `make help` lists the targets.
#
# The version comes from FyneApp.toml (Details.Version): bump it there.
# Binaries go to bin/, packages and release files to dist/ (both ignored
# by git). Tools are pinned and run with `go run`: nfpm v2.45.2 (.deb,
# .rpm), go-winres v0.3.3 (the Windows icon, manifest and version
# resource), fyne v1.7.4 (the macOS .app). wixl and msiinfo come from
# Debian's msitools/wixl, the Windows cross compiler from
# gcc-mingw-w64-x86-64 (scripts/deps.sh installs them). The official MCP
# Bundle CLI (@anthropic-ai/mcpb 2.1.2, which packs and validates
# switchboard.mcpb) is the one the tests use, pinned with the npm servers in
# engine/stdio/testdata/npm (scripts/deps.sh, or the first build that needs
# it, runs npm install there).

GO      ?= go
MODULE  := github.com/switchboard-mcp/switchboard
VERSION := $(shell sed -n 's/^[[:space:]]*Version[[:space:]]*=[[:space:]]*"\([^"]*\)".*/\1/p' FyneApp.toml)
RELEASE ?= 1
APPID   := $(shell sed -n 's/^[[:space:]]*ID[[:space:]]*=[[:space:]]*"\([^"]*\)".*/\1/p' FyneApp.toml)
LDFLAGS := -s -w -X $(MODULE)/app/cli.Version=$(VERSION) -X $(MODULE)/app/bridge.Version=$(VERSION)

NFPM    := $(GO) run github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2
WINRES  := $(GO) run github.com/tc-hib/go-winres@v0.3.3
FYNE    := $(GO) run fyne.io/tools/cmd/fyne@v1.7.4
MINGW_CC ?= x86_64-w64-mingw32-gcc

LINUX_BIN := bin/linux-amd64/switchboard
LINUX_BRIDGE := bin/linux-amd64/switchboard-bridge
LINUX_SANDBOX := bin/linux-amd64/switchboard-sandbox
SANDBOX_PKG := ./engine/sandbox/cmd/switchboard-sandbox
BRIDGE_PKG := ./app/bridge/cmd/switchboard-bridge
WIN_DIR   := bin/windows-amd64
PKG       := bin/pkg
DEB       := dist/switchboard_$(VERSION)-$(RELEASE)_amd64.deb
RPM       := dist/switchboard-$(VERSION)-$(RELEASE).x86_64.rpm
MSI       := dist/switchboard-$(VERSION)-x64.msi

# No -trimpath by default, so that these builds reuse the build cache of
# plain `go build`s of the same targets: Fyne's cgo code (GLFW, GL) takes
# minutes to compile cold. For a release, `make dist GOFLAGS=-trimpath`
# keeps the build machine's paths out of the binaries.

.PHONY: help build test linux man deb rpm windows msi dist darwin-check \
	app dmg package-test clean mcpb mcpb-linux mcpb-windows

help:
	@echo "make build         bin/switchboard and bin/switchboard-bridge for this machine (development)"
	@echo "make test          the test suite (scripts/test.sh)"
	@echo "make linux         $(LINUX_BIN) and $(LINUX_BRIDGE) (release flags)"
	@echo "make deb | rpm     $(DEB) | $(RPM)"
	@echo "make windows       $(WIN_DIR)/switchboard.exe (console), switchboard-tray.exe (GUI), switchboard-bridge.exe"
	@echo "make msi           $(MSI)"
	@echo "make mcpb          switchboard.mcpb (Claude Desktop extension) in $(dir $(LINUX_BIN)) and $(WIN_DIR)/"
	@echo "make dist          everything this machine can build, in dist/, with SHA256SUMS"
	@echo "make darwin-check  every package compiles for macOS (CGO_ENABLED=0 -tags ci)"
	@echo "make app | dmg     the macOS .app bundle | .dmg (on a Mac only)"
	@echo "make man           refresh packaging/linux/switchboard.1 from 'switchboard help'"
	@echo "make package-test  build the packages and check them (scripts/package-test.sh)"
	@echo "version $(VERSION)-$(RELEASE), app id $(APPID)"

# switchboard-bridge, the program AI apps' configs name, is built without
# cgo everywhere: a static executable that starts in a millisecond (no
# dynamic loader, no libGL or libX11; see app/bridge and docs/gateway.md).
BRIDGE_ENV := CGO_ENABLED=0

build:
	$(GO) build -ldflags "-X $(MODULE)/app/cli.Version=$(VERSION)-dev" -o bin/switchboard .
	$(BRIDGE_ENV) $(GO) build -ldflags "-X $(MODULE)/app/bridge.Version=$(VERSION)-dev" -o bin/switchboard-bridge $(BRIDGE_PKG)

test:
	bash scripts/test.sh

# The release binary for Linux: cgo (Fyne's GLFW driver), stripped, with
# Debian's hardening: PIE, full RELRO (relro, bind now), and the C parts
# (GLFW) with fortified functions and a stack protector. PIE compiles
# everything apart from the plain builds' cache: about 3 minutes cold.
LINUX_ENV := CGO_ENABLED=1 GOOS=linux GOARCH=amd64 CGO_CPPFLAGS=-D_FORTIFY_SOURCE=2 \
	CGO_CFLAGS="-g -O2 -fstack-protector-strong"
linux:
	@mkdir -p $(dir $(LINUX_BIN))
	$(LINUX_ENV) $(GO) build -buildmode=pie \
		-ldflags "$(LDFLAGS) -linkmode=external '-extldflags=-Wl,-z,relro,-z,now'" -o $(LINUX_BIN) .
	$(BRIDGE_ENV) GOOS=linux GOARCH=amd64 $(GO) build -ldflags "$(LDFLAGS)" -o $(LINUX_BRIDGE) $(BRIDGE_PKG)
	$(LINUX_ENV) $(GO) build -buildmode=pie -tags netgo,osusergo \
		-ldflags "$(LDFLAGS) -linkmode=external '-extldflags=-static-pie -Wl,-z,relro,-z,now'" -o $(LINUX_SANDBOX) $(SANDBOX_PKG)

# switchboard-sandbox, the exec shim of a sandboxed server (engine/sandbox,
# docs/sandbox.md), is the C shim alone in a static PIE: no dynamic loader
# and no Go runtime before the server's execve, so a sandboxed start costs
# one small exec more (about 3 ms here) where the switchboard binary, which
# implements the same shim, first loads Fyne's shared libraries (about
# 10 ms). The host finds it in ../libexec/switchboard/ or beside itself.

man: linux
	packaging/linux/gen-man.sh $(LINUX_BIN) $(VERSION) > packaging/linux/switchboard.1

# What nfpm.yaml takes from bin/pkg: the binary, and the man page, the
# copyright file and the systemd user unit generated from that binary, and
# a changelog entry for this version.
$(PKG)/.linux: linux
	@mkdir -p $(PKG)
	cp $(LINUX_BIN) $(PKG)/switchboard
	objcopy --remove-section=.comment $(PKG)/switchboard
	cp $(LINUX_BRIDGE) $(PKG)/switchboard-bridge
	cp $(LINUX_SANDBOX) $(PKG)/switchboard-sandbox
	objcopy --remove-section=.comment $(PKG)/switchboard-sandbox
	packaging/linux/gen-man.sh $(LINUX_BIN) $(VERSION) > $(PKG)/switchboard.1
	gzip -9n -c $(PKG)/switchboard.1 > $(PKG)/switchboard.1.gz
	packaging/linux/gen-copyright.sh $(LINUX_BIN) > $(PKG)/copyright
	packaging/linux/gen-changelog.sh $(VERSION)-$(RELEASE) > $(PKG)/changelog.yaml
	$(GO) run packaging/linux/gen-unit.go > $(PKG)/switchboard.service
	@touch $@

deb: $(PKG)/.linux mcpb-linux
	@mkdir -p dist
	GOARCH=amd64 SWITCHBOARD_VERSION=$(VERSION) SWITCHBOARD_RELEASE=$(RELEASE) \
		$(NFPM) package --config packaging/linux/nfpm.yaml --packager deb --target $(DEB)

rpm: $(PKG)/.linux mcpb-linux
	@mkdir -p dist
	GOARCH=amd64 SWITCHBOARD_VERSION=$(VERSION) SWITCHBOARD_RELEASE=$(RELEASE) \
		$(NFPM) package --config packaging/linux/nfpm.yaml --packager rpm --target $(RPM)

# Two Windows binaries from the same source (see docs/install.md), and the
# bridge:
#   switchboard.exe         console subsystem: the CLI, serve, bridge
#   switchboard-tray.exe    GUI subsystem (-H=windowsgui): the tray, no console
#   switchboard-bridge.exe  console subsystem, no cgo: what AI apps run (no
#                           resources: it is never shown, and the internal
#                           linker would need its .syso in the source tree)
# Each gets its icon, manifest and version resource from a go-winres .syso,
# handed to the external linker (so no .syso is written into the source
# tree, where every Windows build would pick it up).
WIN_ENV := GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=$(MINGW_CC)
WINRES_COMMON := --arch amd64 --icon packaging/icons/switchboard.ico --product-name Switchboard \
	--product-version $(VERSION) --file-version $(VERSION) --copyright "The Switchboard authors"

windows:
	@mkdir -p $(WIN_DIR) $(PKG)
	$(WINRES) simply $(WINRES_COMMON) --manifest cli --file-description "Switchboard command line" \
		--original-filename switchboard.exe --out $(PKG)/console
	$(WINRES) simply $(WINRES_COMMON) --manifest gui --file-description "Switchboard" \
		--original-filename switchboard-tray.exe --out $(PKG)/tray
	$(WIN_ENV) $(GO) build -ldflags "$(LDFLAGS) -linkmode=external '-extldflags=$(CURDIR)/$(PKG)/console_windows_amd64.syso'" \
		-o $(WIN_DIR)/switchboard.exe .
	$(WIN_ENV) $(GO) build -ldflags "$(LDFLAGS) -H=windowsgui -linkmode=external '-extldflags=$(CURDIR)/$(PKG)/tray_windows_amd64.syso'" \
		-o $(WIN_DIR)/switchboard-tray.exe .
	$(BRIDGE_ENV) GOOS=windows GOARCH=amd64 $(GO) build -ldflags "$(LDFLAGS)" -o $(WIN_DIR)/switchboard-bridge.exe $(BRIDGE_PKG)

# wixl (msitools 0.101) has no <Environment> element, so msibuild adds to
# its output what puts the install folder on the system PATH (removed again
# at uninstall): the Environment table from packaging/windows/Environment.idt
# and the two standard actions that apply it, at their standard sequence
# numbers (see switchboard.wxs). Built under a temporary name, so that a
# failed step leaves no MSI without them.
msi: windows mcpb-windows
	@mkdir -p dist
	rm -f $(MSI) $(MSI).tmp
	wixl -a x64 -D Version=$(VERSION) -D BinDir=$(WIN_DIR) -D IconFile=packaging/icons/switchboard.ico \
		-o $(MSI).tmp packaging/windows/switchboard.wxs
	msibuild $(MSI).tmp -i packaging/windows/Environment.idt \
		-q "INSERT INTO InstallExecuteSequence (Action, Sequence) VALUES ('RemoveEnvironmentStrings', 3300)" \
		-q "INSERT INTO InstallExecuteSequence (Action, Sequence) VALUES ('WriteEnvironmentStrings', 5200)"
	mv $(MSI).tmp $(MSI)

# switchboard.mcpb: Switchboard as an MCP Bundle (docs/bundles.md,
# "Switchboard as a bundle"), one per platform built here, each running the
# switchboard-bridge of that platform packed in it. The manifest is written
# by packaging/mcpb (from VERSION), then the official CLI validates it,
# packs the folder (manifest.json, icon.png, server/switchboard-bridge) and
# prints the packed bundle's info. The .deb and .rpm install the Linux one
# as /usr/share/switchboard/switchboard.mcpb, the MSI the Windows one
# beside switchboard.exe; dist/ has each in its platform's folder.
MCPB_DIR := packaging/mcpb
NPM_DIR  := engine/stdio/testdata/npm
MCPB     := $(NPM_DIR)/node_modules/.bin/mcpb
LINUX_MCPB := $(dir $(LINUX_BIN))switchboard.mcpb
WIN_MCPB   := $(WIN_DIR)/switchboard.mcpb

# Installed when missing, as scripts/deps.sh installs it (npm install: see
# there why not npm ci); deps.sh also reinstalls after a change of the lock.
$(MCPB):
	cd $(NPM_DIR) && npm install --no-audit --no-fund --loglevel=error

# mcpb_bundle STAGING-DIR,GOOS,GOARCH,BRIDGE,OUTPUT
define mcpb_bundle
	rm -rf $(1) && mkdir -p $(1)/server
	$(GO) run ./$(MCPB_DIR) -version $(VERSION) -goos $(2) -goarch $(3) -o $(1)/manifest.json
	cp packaging/icons/switchboard-512.png $(1)/icon.png
	cp $(4) $(1)/server/
	$(MCPB) validate $(1)/manifest.json
	rm -f $(5)
	$(MCPB) pack $(1) $(5)
	$(MCPB) info $(5)
endef

mcpb: mcpb-linux mcpb-windows

mcpb-linux: linux $(MCPB)
	$(call mcpb_bundle,bin/mcpb/linux-amd64,linux,amd64,$(LINUX_BRIDGE),$(LINUX_MCPB))

mcpb-windows: windows $(MCPB)
	$(call mcpb_bundle,bin/mcpb/windows-amd64,windows,amd64,$(WIN_DIR)/switchboard-bridge.exe,$(WIN_MCPB))

dist: deb rpm msi
	rm -rf dist/switchboard_$(VERSION)_linux_amd64 dist/switchboard_$(VERSION)_windows_amd64
	mkdir -p dist/switchboard_$(VERSION)_linux_amd64 dist/switchboard_$(VERSION)_windows_amd64
	cp $(LINUX_BIN) $(LINUX_BRIDGE) $(LINUX_MCPB) dist/switchboard_$(VERSION)_linux_amd64/
	cp $(WIN_DIR)/switchboard.exe $(WIN_DIR)/switchboard-tray.exe $(WIN_DIR)/switchboard-bridge.exe $(WIN_MCPB) \
		dist/switchboard_$(VERSION)_windows_amd64/
	rm -f dist/SHA256SUMS
	cd dist && find . -type f | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum > ../$(PKG)/SHA256SUMS
	mv $(PKG)/SHA256SUMS dist/SHA256SUMS
	@echo "dist/:" && cat dist/SHA256SUMS

# Every package compiles for macOS (CGO_ENABLED=0 -tags ci), except those
# that use Fyne's widgets: see packaging/darwin-check.sh.
darwin-check:
	packaging/darwin-check.sh

# macOS: the .app bundle (fyne package, given FyneApp.toml's name, id,
# version and icon; Contents/MacOS/switchboard is the binary built here;
# the MCP Bundle document type of packaging/darwin/document-types.plist
# merged into its Info.plist, as fyne has no setting for it; the darwin
# switchboard.mcpb in Contents/Resources and in dist/darwin/)
# and a compressed .dmg with it. Both need a Mac (cgo with
# Apple's SDK, hdiutil); sign and notarize the .app before the .dmg for
# release (codesign, notarytool: not automated here).
IS_DARWIN := $(filter Darwin,$(shell uname -s))
MAC_ARCH  ?= $(shell uname -m | sed 's/x86_64/amd64/')

app:
ifeq ($(IS_DARWIN),)
	@echo "make app: the macOS .app bundle can only be built on a Mac (cgo with Apple's SDK);" >&2
	@echo "          on this machine 'make darwin-check' checks that the code compiles for macOS." >&2
	@exit 1
else
	@mkdir -p bin/darwin dist/darwin
	CGO_ENABLED=1 $(GO) build -ldflags "$(LDFLAGS)" -o bin/darwin/switchboard .
	$(BRIDGE_ENV) $(GO) build -ldflags "$(LDFLAGS)" -o bin/darwin/switchboard-bridge $(BRIDGE_PKG)
	rm -rf Switchboard.app dist/darwin/Switchboard.app
	$(FYNE) package -os darwin -release -executable bin/darwin/switchboard -name Switchboard \
		-app-id $(APPID) -app-version $(VERSION) -icon packaging/icons/switchboard-512.png
	cp bin/darwin/switchboard-bridge Switchboard.app/Contents/MacOS/switchboard-bridge
	/usr/libexec/PlistBuddy -c "Merge packaging/darwin/document-types.plist" Switchboard.app/Contents/Info.plist
	$(MAKE) $(MCPB)
	$(call mcpb_bundle,bin/mcpb/darwin-$(MAC_ARCH),darwin,$(MAC_ARCH),bin/darwin/switchboard-bridge,Switchboard.app/Contents/Resources/switchboard.mcpb)
	cp Switchboard.app/Contents/Resources/switchboard.mcpb dist/darwin/switchboard.mcpb
	mv Switchboard.app dist/darwin/
endif

dmg: app
ifneq ($(IS_DARWIN),)
	rm -f dist/Switchboard-$(VERSION)-$(MAC_ARCH).dmg
	hdiutil create -volname Switchboard -srcfolder dist/darwin/Switchboard.app -ov -format UDZO \
		dist/Switchboard-$(VERSION)-$(MAC_ARCH).dmg
endif

package-test:
	bash scripts/package-test.sh

clean:
	rm -rf dist $(PKG) bin/linux-amd64 $(WIN_DIR) bin/mcpb
