import Foundation

extension OAuthClient {
    /// A device authorization in progress (RFC 8628 §3.2): what the user must do, and what the client polls with.
    public struct DeviceAuthorization: Sendable, Hashable {
        /// The code the client polls with; never shown.
        public let deviceCode: Secret
        /// The code the user types, as the server wrote it.
        public let userCode: String
        /// Where the user goes to type it.
        public let verificationURI: URL
        /// A URL with the code already in it, when the server gives one.
        public let verificationURIComplete: URL?
        /// When the device code stops working, by the client's own clock.
        public let expiresAt: Date
        /// Seconds between polls; grows by 5 on each `slow_down` (RFC 8628 §3.5).
        public let interval: TimeInterval
        /// Text the server wants shown (Microsoft sends one), if any.
        public let message: String?
        /// The scopes asked for.
        public let scopes: [String]

        /// The user code grouped for reading aloud and typing: `WDJBMJHT` becomes `WDJB-MJHT`.
        ///
        /// Codes that already contain a separator, or do not split evenly, are shown as they came.
        public var displayUserCode: String {
            guard userCode.count >= 6, userCode.count.isMultiple(of: 2),
                userCode.allSatisfy({ $0.isLetter || $0.isNumber })
            else { return userCode }
            let middle = userCode.index(userCode.startIndex, offsetBy: userCode.count / 2)
            return "\(userCode[..<middle])-\(userCode[middle...])"
        }
    }
}

extension OAuthClient {
    /// One poll's outcome, for hosts that show progress.
    public enum DevicePoll: Sendable {
        /// The user has not finished yet (`authorization_pending`).
        case pending
        /// The server asked to poll less often (`slow_down`); the new interval in seconds.
        case slowDown(TimeInterval)
    }

    /// Asks for a device code and a user code (RFC 8628 §3.1).
    ///
    /// Client authentication and body encoding follow the descriptor and the client settings,
    /// as for token requests.
    /// - Throws: ``FlowError`` `grantNotSupported` when the descriptor does not declare the grant,
    ///   `missingEndpoint`, `invalidTokenResponse` for an unusable answer;
    ///   ``AuthorizationServerError`` when the server refuses; ``TransportError``.
    public func startDeviceAuthorization() async throws -> OAuthClient.DeviceAuthorization {
        let policy = provider.policy
        guard policy.supportsDeviceFlow else {
            throw FlowError(
                .grantNotSupported,
                "provider `\(provider.id)` does not declare the device authorization grant (`grant_types` lacks `\(GrantType.deviceCode.rawValue)`)")
        }
        // RFC 8628 has no `acr_values` or `max_age`: a step-up asked of a device sign-in would go unchecked.
        try refuseStepUp(in: "the device grant")
        let endpoint = try await deviceEndpoint()
        var scopes = configuration.scopes ?? policy.scopes.defaults
        if configuration.requestOfflineAccess {
            for scope in policy.scopes.offlineScopes where !scopes.contains(scope) { scopes.append(scope) }
        }
        // The provider's fixed parameters (`device.extra_params`: Amazon's and Salesforce's `response_type`), then
        // the scopes under the provider's name for them (`device.scope_parameter`), as `scopes.parameter` says.
        var parameters = policy.device.parameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        parameters += policy.scopes.parameters(for: scopes, named: policy.device.scopeParameter)
        // RFC 9396 §3: details go wherever `scope` may.
        if !configuration.authorizationDetails.isEmpty {
            try AuthorizationDetail.check(configuration.authorizationDetails, for: knownProvider)
            parameters.append(("authorization_details", AuthorizationDetail.encoded(configuration.authorizationDetails)))
        }
        let response = try await post(to: endpoint, parameters, purpose: .deviceAuthorization)
        let fields = try TokenResponseParser.fields(
            of: response, format: policy.tokenResponseFormat,
            endpoint: "the device authorization endpoint")
        if let error = TokenResponseParser.serverError(in: fields, status: response.status) {
            // The same hints as a token request: the body encoding, when the answer points at it.
            try explainingEncoding(sent: parameters) { throw error }
        }
        guard (200..<300).contains(response.status) else {
            throw FlowError(.invalidTokenResponse, "the device authorization endpoint answered HTTP \(response.status) without an OAuth error")
        }
        func required(_ name: String) throws -> String {
            guard let value = fields[name]?.stringValue, !value.isEmpty else {
                throw FlowError(.invalidTokenResponse, "the device authorization answer has no `\(name)`")
            }
            return value
        }
        let deviceCode = try required("device_code")
        let userCode = try required("user_code")
        guard userCode.count <= 64, userCode.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
            throw FlowError(.invalidTokenResponse, "the device authorization answer's `user_code` is not a short printable code")
        }
        let uriNames = ["verification_uri"] + policy.device.verificationURIAliases
        guard let uriText = uriNames.lazy.compactMap({ fields[$0]?.stringValue }).first else {
            throw FlowError(
                .invalidTokenResponse,
                "the device authorization answer has no \(uriNames.map { "`\($0)`" }.joined(separator: " or ")) (set `device.verification_uri_aliases` if the provider names it otherwise)"
            )
        }
        guard let verificationURI = Self.verificationURL(uriText) else {
            throw FlowError(
                .invalidTokenResponse,
                "the device authorization answer's verification URI `\(TerminalText.escaped(String(uriText.prefix(200))))` is not an https URL (http only on loopback)"
            )
        }
        guard let lifetime = fields["expires_in"]?.numberValue, lifetime.isFinite, lifetime > 0 else {
            throw FlowError(.invalidTokenResponse, "the device authorization answer has no positive `expires_in`")
        }
        let interval = Self.pollingInterval(fields["interval"]) ?? TimeInterval(policy.device.interval)
        let complete = fields["verification_uri_complete"]?.stringValue.flatMap(Self.verificationURL)
        logger.debug("device authorization started", metadata: ["provider": "\(provider.id)", "expires_in": "\(lifetime)"])
        return OAuthClient.DeviceAuthorization(
            deviceCode: Secret(deviceCode), userCode: userCode, verificationURI: verificationURI,
            verificationURIComplete: complete,
            // A day at most: a server's huge lifetime must not make the client poll forever.
            expiresAt: clock.now().addingTimeInterval(min(lifetime, 86_400)),
            interval: min(max(interval, Self.minimumPollingInterval), Self.maximumPollingInterval),
            message: fields["message"]?.stringValue, scopes: scopes)
    }

    /// A poll's parameters (RFC 8628 §3.4 unless the descriptor's `device` says otherwise): the grant type, then
    /// each of `device.poll_params` by name, with the value it names.
    func pollParameters(_ authorization: OAuthClient.DeviceAuthorization) -> [(String, String)] {
        let device = provider.policy.device
        return [("grant_type", device.grantType)]
            + device.pollParameters.sorted { $0.key < $1.key }.map { name, source in
                switch source {
                case .deviceCode: (name, authorization.deviceCode.value)
                case .userCode: (name, authorization.userCode)
                case .scope: (name, provider.policy.scopes.joined(authorization.scopes))
                }
            }
    }

    /// The shortest wait between polls, whatever the server says: 1 s.
    package static let minimumPollingInterval: TimeInterval = 1
    /// The longest, however often the server answers `slow_down`: 5 minutes.
    package static let maximumPollingInterval: TimeInterval = 300

    /// A verification URI the user may be sent to: https, or http on a loopback host; nothing else.
    static func verificationURL(_ text: String) -> URL? {
        guard let url = URL(string: text), let host = url.host, !host.isEmpty else { return nil }
        return TransportPolicy.isSecure(url) ? url : nil
    }

    /// The answer's `interval`: a JSON number, or a string of digits (form-encoded answers have
    /// only strings); anything else (`"0.001"`, `"5s"`, `true`) is ignored for the descriptor's default.
    static func pollingInterval(_ value: JSONValue?) -> TimeInterval? {
        switch value {
        case let .number(seconds)? where seconds.isFinite && seconds > 0:
            return seconds
        case let .string(text)? where !text.isEmpty && text.count <= 6 && text.allSatisfy(\.isASCII) && text.allSatisfy(\.isNumber):
            return TimeInterval(text).flatMap { $0 > 0 ? $0 : nil }
        default:
            return nil
        }
    }

    /// Polls the token endpoint until the user approves, denies, or the code expires (RFC 8628 §3.4, §3.5),
    /// waiting between polls on the environment's clock (the task's cancellation stops the wait).
    ///
    /// - Parameters:
    ///   - authorization: From ``startDeviceAuthorization()``.
    ///   - onPoll: Told about each `authorization_pending` and `slow_down`.
    /// - Returns: The tokens; an ID token, when one comes, is verified (no nonce in this flow).
    /// - Throws: ``AuthorizationServerError`` `access_denied` or `expired_token` from the server;
    ///   ``FlowError`` `deviceCodeExpired` when the code's lifetime ends by the client's own clock
    ///   (servers may keep answering `authorization_pending`); `CancellationError`.
    public func pollDeviceAuthorization(
        _ authorization: OAuthClient.DeviceAuthorization, onPoll: @Sendable (DevicePoll) -> Void = { _ in }
    ) async throws -> TokenSet {
        try await pollDeviceSignIn(authorization, onPoll: onPoll).tokens
    }

    /// Like ``pollDeviceAuthorization(_:onPoll:)``, also handing back the verified ID token claims.
    public func pollDeviceSignIn(
        _ authorization: OAuthClient.DeviceAuthorization, onPoll: @Sendable (DevicePoll) -> Void = { _ in }
    ) async throws -> SignInOutcome {
        try await countingSignIn { try await poll(authorization, onPoll: onPoll) }
    }

    private func poll(_ authorization: OAuthClient.DeviceAuthorization, onPoll: @Sendable (DevicePoll) -> Void) async throws -> SignInOutcome {
        var interval = authorization.interval
        // One key for every poll: the tokens, when they come, are bound to it.
        let proofKey = try await newProofKey()
        while true {
            let remaining = authorization.expiresAt.timeIntervalSince(clock.now())
            guard remaining > 0 else {
                throw FlowError(.deviceCodeExpired, "the device code expired before the sign-in was approved")
            }
            try await clock.sleep(seconds: min(interval, remaining))
            try Task.checkCancellation()
            guard authorization.expiresAt > clock.now() else {
                throw FlowError(.deviceCodeExpired, "the device code expired before the sign-in was approved")
            }
            let response = try await tokenRequest(pollParameters(authorization), proofKey: proofKey)
            let fields = try? TokenResponseParser.fields(of: response, format: provider.policy.tokenResponseFormat)
            if let fields, let error = TokenResponseParser.serverError(in: fields, status: response.status) {
                switch error.error {
                case "authorization_pending":
                    onPoll(.pending)
                    continue
                case "slow_down":
                    interval = min(interval + 5, Self.maximumPollingInterval)
                    onPoll(.slowDown(interval))
                    continue
                default:
                    throw error
                }
            }
            let tokens = try bound(
                TokenResponseParser.tokenSet(
                    from: response, format: provider.policy.tokenResponseFormat, separator: provider.policy.scopes.grantedSeparator,
                    defaultTokenType: provider.policy.defaultTokenType, zeroExpiresIn: provider.policy.zeroExpiresIn,
                    requestedScopes: authorization.scopes, previous: nil, now: clock.now()), key: proofKey)
            var verified: IDTokenClaims?
            if provider.isOpenIDConnect, let idToken = tokens.idToken {
                verified = try await idTokenValidator().validate(idToken, nonce: nil, accessToken: tokens.accessToken)
            }
            logger.debug("device authorization approved", metadata: ["provider": "\(provider.id)"])
            return SignInOutcome(tokens: tokens, idToken: verified)
        }
    }
}
