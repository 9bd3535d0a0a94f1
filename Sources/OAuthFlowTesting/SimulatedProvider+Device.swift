import Foundation
import OAuthFlow

extension SimulatedProvider {
    /// The device authorization endpoint (RFC 8628 §3.1, §3.2): a device code, a user code and where to enter it.
    func deviceAuthorizationEndpoint(_ request: TransportRequest) throws -> TransportResponse {
        let form = try Self.form(of: request)
        let client = try authenticateClient(request, form)
        let deviceCode = Self.random()
        let userCode = Self.userCode(hyphenated: settings.hyphenatesUserCodes)
        let scopes = try client.granted((form["scope"] ?? "").split(separator: " ").map(String.init))
        devices[deviceCode] = DeviceGrant(
            clientID: client.id, userCode: userCode, scopes: scopes, expiresAt: clock.now().addingTimeInterval(settings.deviceCodeLifetime),
            interval: settings.devicePollingInterval)
        let verification = url(.authorization).deletingLastPathComponent().appendingPathComponent("device")
        return Self.json([
            "device_code": .string(deviceCode), "user_code": .string(userCode), "verification_uri": .string(verification.absoluteString),
            "verification_uri_complete": .string(verification.absoluteString + "?user_code=" + userCode),
            "expires_in": .number(settings.deviceCodeLifetime.rounded()), "interval": .number(settings.devicePollingInterval.rounded()),
        ])
    }

    /// RFC 8628 §6.1: eight characters of a 20-letter alphabet without vowels, as `XXXX-XXXX` or, not hyphenated, `XXXXXXXX`.
    private static func userCode(hyphenated: Bool) -> String {
        let alphabet = Array("BCDFGHJKLMNPQRSTVWXZ")
        var generator = SystemRandomNumberGenerator()
        let letters = (0..<8).map { _ in alphabet[Int(generator.next(upperBound: UInt(alphabet.count)))] }
        return String(letters[0..<4]) + (hyphenated ? "-" : "") + String(letters[4..<8])
    }

    /// Plays the user who enters `userCode` at the verification URI and approves.
    ///
    /// - Throws: ``SimulationError`` for a code that is unknown, expired or already answered.
    public func approveDevice(userCode: String, subject: String = "user-1") throws {
        try answerDevice(userCode: userCode, with: .approved(subject: subject))
    }

    /// Plays the user who enters `userCode` and declines: the next poll gets `access_denied`.
    public func denyDevice(userCode: String) throws {
        try answerDevice(userCode: userCode, with: .denied)
    }

    /// Makes the user approve every device authorization on its own, at the given poll: the polls before it are
    /// answered `authorization_pending`. For a host's device sign-in that a test cannot interrupt to approve.
    public func approveDevices(afterPolls polls: Int, subject: String = "user-1") {
        deviceApproval = (max(1, polls), subject)
    }

    /// The user codes of the device authorizations still waiting for the user.
    public var pendingUserCodes: [String] {
        devices.values.filter { if case .pending = $0.status { return true } else { return false } }.map(\.userCode)
    }

    private func answerDevice(userCode: String, with status: DeviceGrant.Status) throws {
        let wanted = userCode.uppercased().filter { $0 != "-" }
        guard let (code, grant) = devices.first(where: { $0.value.userCode.filter { $0 != "-" } == wanted }), case .pending = grant.status,
            grant.expiresAt > clock.now()
        else { throw SimulationError("no device authorization waits for that user code") }
        devices[code]?.status = status
    }

    /// The device code grant (RFC 8628 §3.4, §3.5): `authorization_pending` until the user answers, `slow_down`
    /// (and five seconds more to the interval) for a poll sooner than the interval, `access_denied`, `expired_token`.
    func redeemDeviceCode(_ form: [String: String], client: SimulatedClient, proof: VerifiedProof?) throws -> Issue {
        guard let code = form["device_code"], var grant = devices[code], grant.clientID == client.id else {
            throw OAuthRefusal.invalidGrant("unknown device code")
        }
        let now = clock.now()
        guard grant.expiresAt > now else { throw OAuthRefusal("expired_token", "the device code expired") }
        defer { devices[code] = grant }
        grant.polls += 1
        // A little leeway: a poll timed by the same clock to the exact interval is on time.
        if let last = grant.lastPoll, now.timeIntervalSince(last) < grant.interval - 0.5 {
            grant.lastPoll = now
            grant.interval += 5
            throw OAuthRefusal("slow_down", "polling too often; wait \(Int(grant.interval)) seconds")
        }
        grant.lastPoll = now
        if case .pending = grant.status, let approval = deviceApproval, grant.polls >= approval.afterPolls {
            grant.status = .approved(subject: approval.subject)
        }
        switch grant.status {
        case .pending:
            throw OAuthRefusal("authorization_pending", "the user has not answered yet")
        case .denied:
            throw OAuthRefusal("access_denied", "the user declined")
        case .spent:
            throw OAuthRefusal.invalidGrant("the device code was used before")
        case let .approved(subject):
            grant.status = .spent
            let refresh =
                settings.issuesRefreshTokens
                ? (now.addingTimeInterval(settings.refreshTokenLifetime), client.authentication == .none ? proof?.thumbprint : nil) : nil
            return Issue(
                clientID: client.id, subject: subject, scopes: grant.scopes, audience: [settings.accessTokenAudience], family: Self.random(),
                sessionID: Base64URL.random(bytes: 12), authTime: now, proofKey: proof?.thumbprint, refresh: refresh)
        }
    }
}
