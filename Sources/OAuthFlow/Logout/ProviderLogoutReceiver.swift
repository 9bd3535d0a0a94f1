import Foundation
import Logging

/// Ends the sessions a provider says have ended: a back-channel logout token it POSTs (OpenID Connect
/// Back-Channel Logout 1.0) or a front-channel request it has the browser load (Front-Channel Logout 1.0).
///
/// Share its ``SessionDirectory`` and ``ReplayRegistry`` between instances, so that a logout any instance receives
/// reaches all of them.
package final class ProviderLogoutReceiver: Sendable {
    /// What to answer the provider (or the browser, for front-channel logout).
    package struct Answer: Sendable {
        /// 200 when the logout was understood and its sessions ended; 400 when refused; 503 when the session
        /// store or the replay registry could not be reached (the provider may retry).
        package let status: Int
        /// The body: a JSON error object for a refused back-channel request, else empty or a small page.
        package let body: String
        package let contentType: String?
        /// The sessions ended.
        package let ended: [SessionKey]
        /// Why it was refused, for the log; never a token.
        package let reason: String?

        /// The header fields to send: `Cache-Control: no-store` always (§2.8).
        package var headers: [(name: String, value: String)] {
            [("Cache-Control", "no-store")] + (contentType.map { [("Content-Type", $0)] } ?? [])
        }
    }

    /// The largest back-channel body read: a logout token is a few kilobytes.
    package static let maximumBodySize = 64 * 1024

    package let client: OAuthClient
    package let sessions: any SessionDirectory
    package let replays: any ReplayRegistry
    private let logger: Logger

    /// - Parameters:
    ///   - client: The provider's client: its ID tokens' checks apply to logout tokens, and its environment's logger
    ///     receives why a logout request was refused.
    ///   - sessions: The sessions a logout ends.
    ///   - replays: The logout token `jti`s seen; share one between instances.
    package init(client: OAuthClient, sessions: any SessionDirectory, replays: any ReplayRegistry = InMemoryReplayRegistry()) {
        self.client = client
        self.sessions = sessions
        self.replays = replays
        self.logger = client.environment.logger
    }

    // MARK: - Back-channel

    /// Handles a back-channel logout request: a form body with one `logout_token`.
    ///
    /// - Parameters:
    ///   - body: The request body; more than ``maximumBodySize`` bytes is refused unread.
    ///   - contentType: The request's `Content-Type`; it must be `application/x-www-form-urlencoded`.
    package func receiveBackChannel(body: Data, contentType: String?) async -> Answer {
        counted(await backChannel(body: body, contentType: contentType), channel: "back")
    }

    private func backChannel(body: Data, contentType: String?) async -> Answer {
        let provider = client.provider
        guard body.count <= Self.maximumBodySize else { return refuse("the body is larger than \(Self.maximumBodySize) bytes") }
        let mediaType = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard mediaType == "application/x-www-form-urlencoded" else {
            return refuse("the request is not application/x-www-form-urlencoded")
        }
        let tokens = FormEncoding.decode(String(decoding: body, as: UTF8.self)).filter { $0.0 == "logout_token" }
        guard tokens.count == 1, !tokens[0].1.isEmpty else {
            return refuse(tokens.isEmpty ? "the request carries no logout_token" : "the request carries more than one logout_token")
        }
        let claims: LogoutTokenClaims
        do {
            claims = try await client.idTokenValidator().validateLogoutToken(
                Secret(tokens[0].1), maximumAge: provider.policy.logout.logoutTokenMaxAge)
        } catch let error as IDTokenError where error.code == .keysUnavailable {
            return unavailable("the provider's keys cannot be read: \(error.message)")
        } catch let error as IDTokenError {
            return refuse("the logout token was refused (\(error.code)): \(error.message)")
        } catch {
            return unavailable("the provider's discovery document cannot be read: \(error)")
        }
        guard let match = ProviderSession.Match(issuer: claims.issuer, subject: claims.subject, sessionID: claims.sessionID) else {
            return refuse("the logout token names neither a sub nor a sid")
        }
        // Back-Channel Logout §2.4: a logout token is signed with the algorithm of the provider's ID tokens for the
        // client. The ID tokens the named sessions keep say which that is; a token signed otherwise (with another key
        // the provider also publishes) is refused, and ends nothing.
        let algorithm = (try? IDTokenValidator.decodeUnverified(tokens[0].1))?.header["alg"]?.stringValue ?? ""
        do {
            if let expected = try await idTokenAlgorithm(differingFrom: algorithm, of: match) {
                return refuse("the logout token is signed with \(TerminalText.escaped(algorithm)), and the session's ID tokens with \(expected)")
            }
        } catch {
            return unavailable("the session store cannot be reached: \(error)")
        }
        // Kept as long as the token could be accepted at all: its age limit and the leeway past it.
        let keep = claims.issuedAt.addingTimeInterval(provider.policy.logout.logoutTokenMaxAge + 120)
        do {
            guard try await replays.firstUse(of: "logout \(claims.issuer) \(claims.tokenID)", until: keep) else {
                return refuse("the logout token was already used (jti seen before)")
            }
        } catch {
            return unavailable("the replay registry cannot be reached: \(error)")
        }
        return await end(match, via: "back-channel logout")
    }

    /// The signing algorithm of an ID token kept by a session `match` names, when it is not `algorithm`; nil when every
    /// such session's ID token was signed with `algorithm`, or none keeps one.
    private func idTokenAlgorithm(differingFrom algorithm: String, of match: ProviderSession.Match) async throws -> String? {
        for key in try await sessions.keys(of: client.provider.id, matching: match) {
            guard let idToken = try await sessions.load(key)?.tokens.idToken,
                let signed = (try? IDTokenValidator.decodeUnverified(idToken.value))?.header["alg"]?.stringValue
            else { continue }
            if signed != algorithm { return TerminalText.escaped(signed) }
        }
        return nil
    }

    // MARK: - Front-channel

    /// Handles a front-channel logout request (the query of the GET the provider's page makes).
    ///
    /// With `iss` and `sid`, the sessions of that provider session end; the issuer must be the provider's.
    /// Without them (a provider that sends none), only `current`, the session of the browser that made
    /// the request, ends. A provider whose descriptor does not declare `frontchannel_logout_supported` is
    /// refused: the route is an unauthenticated GET, so it stays closed unless the provider uses it.
    package func receiveFrontChannel(query: String?, current: SessionKey? = nil) async -> Answer {
        counted(await frontChannel(query: query, current: current), channel: "front")
    }

    private func frontChannel(query: String?, current: SessionKey?) async -> Answer {
        let provider = client.provider
        guard provider.policy.logout.frontChannel.supported else {
            return refuse("\(provider.id) does not declare `logout.frontchannel_logout_supported`", status: 404)
        }
        let parameters = FormEncoding.decode(query ?? "")
        let issuer = parameters.first { $0.0 == "iss" }?.1
        let sessionID = parameters.first { $0.0 == "sid" }?.1
        if let issuer, let sessionID {
            guard provider.isIDTokenIssuer(issuer, claims: [:]) else {
                return refuse("the request's iss is not \(provider.id)'s issuer")
            }
            guard let match = ProviderSession.Match(issuer: issuer, subject: nil, sessionID: sessionID) else {
                return refuse("the request's sid is empty")
            }
            return await end(match, via: "front-channel logout", page: true)
        }
        if provider.policy.logout.frontChannel.sessionSupported || issuer != nil || sessionID != nil {
            return refuse("the request must carry both iss and sid")
        }
        guard let current else { return Self.ended([], page: true) }
        do {
            try await sessions.remove(current)
        } catch {
            return unavailable("the session store cannot be reached: \(error)")
        }
        return Self.ended([current], page: true)
    }

    // MARK: - Ending sessions

    /// Ends every stored session of the provider that `match` names: each session removed first (what the
    /// logout is for), under the store's lock so that a refresh under way cannot write it back, then the refresh tokens
    /// of those that had one revoked, eight at a time, best effort.
    ///
    /// - Parameters:
    ///   - match: The provider sessions to end.
    ///   - signedInBy: When given, a session whose user signed in after it is left alone: a sign-in that followed the
    ///     event that ends sessions.
    /// - Returns: The sessions ended.
    /// - Throws: Store errors; sessions ended before the error stay ended.
    package func endSessions(_ match: ProviderSession.Match, signedInBy: Date? = nil) async throws -> [SessionKey] {
        var refreshTokens: [(Secret, DPoPKey?, Bool)] = []
        let (provider, clientID) = (client.provider, client.configuration.clientID)
        let ended = try await sessions.withEachSession(of: provider.id, matching: match, signedInBy: signedInBy) { session in
            // Revoked only where it was issued: a session of another server or client (another tenant of the descriptor)
            // is removed, its refresh token not sent to this one's endpoint.
            if let refresh = session.tokens.refreshToken, session.mismatch(with: provider, clientID: clientID) == nil {
                refreshTokens.append((refresh, session.tokens.proofKey, session.tokens.isCertificateBound))
            }
            try await sessions.remove(session.key)
        }
        let keys = ended
        guard !refreshTokens.isEmpty, client.revokes(.refreshToken), (try? await client.revocationEndpoint()) != nil else { return keys }
        let client = self.client
        let logger = self.logger
        await withTaskGroup(of: Void.self) { group in
            for (index, (token, proofKey, certificateBound)) in refreshTokens.enumerated() {
                if index >= 8 { await group.next() }
                group.addTask {
                    do {
                        try await client.revoke(token, kind: .refreshToken, proofKey: proofKey, certificateBound: certificateBound)
                    } catch {
                        logger.info(
                            "could not revoke an ended session's refresh token",
                            metadata: ["provider": "\(client.provider.id)", "reason": "\(TerminalText.escaped("\(error)"))"])
                    }
                }
            }
        }
        return keys
    }

    private func end(_ match: ProviderSession.Match, via channel: String, page: Bool = false) async -> Answer {
        do {
            let ended = try await endSessions(match)
            logger.info(
                "\(channel): sessions ended",
                metadata: ["provider": "\(client.provider.id)", "named": "\(match)", "ended": "\(ended.count)"])
            return Self.ended(ended, page: page)
        } catch {
            return unavailable("the session store cannot be reached: \(error)")
        }
    }

    /// `answer`, counted (`oauthflow_provider_logouts_total`): `ended` for a 200, `unavailable` for a 503, `refused` otherwise.
    private func counted(_ answer: Answer, channel: String) -> Answer {
        let outcome = answer.status == 200 ? "ended" : answer.status == 503 ? "unavailable" : "refused"
        client.environment.instruments.count(.providerLogouts, client.provider.id, channel, outcome)
        return answer
    }

    private func refuse(_ reason: String, status: Int = 400) -> Answer {
        logger.warning("logout request refused", metadata: ["provider": "\(client.provider.id)", "reason": "\(TerminalText.escaped(reason))"])
        return Answer(status: status, body: Self.errorBody("invalid_request", reason), contentType: "application/json", ended: [], reason: reason)
    }

    private func unavailable(_ reason: String) -> Answer {
        logger.error("logout request not handled", metadata: ["provider": "\(client.provider.id)", "reason": "\(TerminalText.escaped(reason))"])
        // Whoever posted the token learns only that it could not be checked now: the reason (a discovery document's or a
        // key set's failure) stays in the log and in the host's answer.
        return Answer(
            status: 503, body: Self.errorBody("temporarily_unavailable", "the logout token cannot be checked now; try again later"),
            contentType: "application/json", ended: [], reason: reason)
    }

    private static func errorBody(_ code: String, _ description: String) -> String {
        let object: [String: String] = ["error": code, "error_description": description]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// 200, with the sessions ended; the front channel's answer is an empty page, the back channel's no body.
    private static func ended(_ keys: [SessionKey], page: Bool) -> Answer {
        Answer(status: 200, body: page ? Self.page : "", contentType: page ? "text/html; charset=utf-8" : nil, ended: keys, reason: nil)
    }

    /// The front-channel answer: an empty page the provider's iframe loads.
    static let page = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Signed out</title></head><body></body></html>"
}
