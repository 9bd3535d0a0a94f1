import Foundation
import Testing
import OAuthFlowTestSupport
import OAuthFlow
import OAuthFlowLoopback

/// Why no browser can open here, and the route a sign-in takes because of it.
@Suite struct SystemBrowserAvailabilityTests {
    /// A PATH directory holding an executable `xdg-open`, so the answer does not depend on the machine.
    static func pathWithOpener() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        let opener = try directory.write("xdg-open", "#!/bin/sh\nexit 0\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: opener.path)
        return directory
    }

    @Test func aChosenBrowserAlwaysCounts() {
        #expect(SystemBrowser.unavailableReason(environment: ["BROWSER": "firefox", "SSH_TTY": "/dev/pts/0", "PATH": "/nonexistent"]) == nil)
    }

    @Test func anSSHSessionHasNoBrowser() throws {
        let bin = try Self.pathWithOpener()
        defer { bin.cleanUp() }
        for variable in ["SSH_CONNECTION", "SSH_TTY"] {
            let environment = [variable: "x", "DISPLAY": ":0", "PATH": bin.url.path]
            #expect(SystemBrowser.unavailableReason(environment: environment) == .sshSession)
        }
        #expect(SystemBrowser.UnavailableReason.sshSession.description == "an SSH session")
    }

    @Test func aDisplayAndAnOpenerMakeABrowser() throws {
        let bin = try Self.pathWithOpener()
        defer { bin.cleanUp() }
        #expect(SystemBrowser.unavailableReason(environment: ["DISPLAY": ":0", "PATH": bin.url.path]) == nil)
        #expect(SystemBrowser.unavailableReason(environment: ["WAYLAND_DISPLAY": "wayland-0", "PATH": bin.url.path]) == nil)
        #expect(SystemBrowser.unavailableReason(environment: ["DISPLAY": ":0", "PATH": "/nonexistent"]) == .noBrowserCommand)
    }

    #if os(Linux)
    @Test func linuxWithoutADisplayHasNoBrowser() throws {
        let bin = try Self.pathWithOpener()
        defer { bin.cleanUp() }
        #expect(SystemBrowser.unavailableReason(environment: ["PATH": bin.url.path]) == .noDisplay)
        #expect(SystemBrowser.unavailableReason(environment: ["DISPLAY": "", "PATH": bin.url.path]) == .noDisplay)
    }
    #endif

    @Test func theDeviceGrantIsChosenOnlyWhereNoBrowserCanOpenAndTheProviderTakesIt() throws {
        let device = try TestDescriptor(extra: "grant_types: [authorization_code, urn:ietf:params:oauth:grant-type:device_code]\n")
            .with(endpoints: [("device_authorization", "https://auth.example.com/device")]).provider()
        let plain = try TestDescriptor().provider()
        let ssh = ["SSH_CONNECTION": "10.0.0.1 5000 10.0.0.2 22"]
        #expect(SignInRoute.automatic(for: device, environment: ssh) == .deviceCode(.sshSession))
        #expect(SignInRoute.automatic(for: plain, environment: ssh) == .browser)
        #expect(SignInRoute.automatic(for: device, environment: ssh.merging(["BROWSER": "firefox"]) { $1 }) == .browser)
    }
}
