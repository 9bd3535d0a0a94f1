import Foundation

extension ProtectedResource {
    /// How recently, and how strongly, the user behind a token must have authenticated (OAuth 2.0 Step Up
    /// Authentication Challenge Protocol, RFC 9470): an API states it for a route, and answers a token that falls
    /// short with `401` and `error="insufficient_user_authentication"`, `acr_values` and `max_age` in its challenge;
    /// a client reads the same value back from that challenge (``init(challenges:)``) and signs the user in again
    /// asking for it (`SignInRun.steppedUp(_:)`, `OAuth.signIn(to:browser:stepUp:)`).
    public struct StepUp: Equatable, Hashable, Sendable {
        /// The authentication context classes accepted, any one of them (the token's `acr`); empty accepts any.
        public var acrValues: [String]
        /// How long ago, in seconds, the user may have authenticated at most (the token's `auth_time`); nil for no limit.
        public var maximumAge: Int?

        public init(acrValues: [String] = [], maximumAge: Int? = nil) {
            self.acrValues = acrValues
            self.maximumAge = maximumAge
        }

        /// The step-up an API's `WWW-Authenticate` challenges ask for: those of a `Bearer` or `DPoP` challenge whose
        /// `error` is `insufficient_user_authentication` (RFC 9470 §3).
        ///
        /// - Parameter challenges: The response's `WWW-Authenticate` values.
        /// - Returns: Nil when no challenge asks for a step-up, or one asks for nothing (no `acr_values` and no valid
        ///   `max_age`): there is then nothing a new sign-in could ask for.
        public init?(challenges: [String]) {
            for challenge in challenges.flatMap(TransportResponse.Challenge.parse)
            where ["bearer", "dpop"].contains(challenge.scheme.lowercased()) && challenge.error == Self.error {
                let acr = (challenge.parameters["acr_values"] ?? "").split(separator: " ").map(String.init)
                // RFC 9470 §3: a non-negative integer of seconds.
                let age = challenge.parameters["max_age"].flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil }
                guard !acr.isEmpty || age != nil else { continue }
                self.init(acrValues: acr, maximumAge: age)
                return
            }
            return nil
        }

        /// Puts what this step-up asks for in a client's `acr_values` and `max_age` (those it leaves out are kept). Of
        /// two ages the shorter is kept: a step-up makes a sign-in fresher, never older than the client asks. The
        /// descriptor's own `authorization.acr_values` and `max_age` stay in force whatever the client asks: a sign-in
        /// asks, and its ID token must meet, both (RFC 9470 §4, §6.1).
        package func apply(acrValues: inout [String], maximumAuthenticationAge: inout Int?) {
            if !self.acrValues.isEmpty { acrValues = self.acrValues }
            if let maximumAge { maximumAuthenticationAge = min(maximumAuthenticationAge ?? maximumAge, maximumAge) }
        }

        /// The error code of a step-up challenge (RFC 9470 §3).
        static let error = "insufficient_user_authentication"

        /// The challenge's attributes: `acr_values` and `max_age`, where set.
        var challengeAttributes: [String] {
            var attributes: [String] = []
            if !acrValues.isEmpty {
                attributes.append("acr_values=\"\(acrValues.joined(separator: " "))\"")
            }
            if let maximumAge { attributes.append("max_age=\(maximumAge)") }
            return attributes
        }

        /// Refuses a principal whose user authenticated longer ago than ``maximumAge``, or by a class not among
        /// ``acrValues``: from the token's (or introspection's) `auth_time` and `acr` (RFC 9068 §2.2.1, RFC 9470 §6).
        ///
        /// - Throws: ``ProtectedResource/Denial`` ``ErrorCode/insufficientUserAuthentication``.
        func check(_ principal: ProtectedResource.Principal, now: Date) throws(ProtectedResource.Denial) {
            if !acrValues.isEmpty {
                guard let acr = principal.claims["acr"]?.stringValue, acrValues.contains(acr) else {
                    let held = principal.claims["acr"]?.stringValue.map { "`\(TerminalText.escaped(String($0.prefix(100))))`" } ?? "none"
                    throw ProtectedResource.Denial(
                        .insufficientUserAuthentication,
                        "the token's `acr` is \(held), not one of \(acrValues.joined(separator: " ")) this route requires", stepUp: self)
                }
            }
            if let maximumAge {
                guard let authenticated = principal.claims["auth_time"]?.numericDate else {
                    throw ProtectedResource.Denial(
                        .insufficientUserAuthentication, "the token says not when the user authenticated (no `auth_time`)", stepUp: self)
                }
                let elapsed = now.timeIntervalSince1970 - authenticated
                guard elapsed <= Double(maximumAge) else {
                    throw ProtectedResource.Denial(
                        .insufficientUserAuthentication,
                        "the user authenticated \(Int(elapsed)) s ago, longer than the \(maximumAge) s this route allows", stepUp: self)
                }
            }
        }
    }
}
