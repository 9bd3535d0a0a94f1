import Foundation
import Logging
import OAuthFlow

/// Signed-in sessions kept in the host's store: tokens on use, sign-out that ends the provider's session
/// too, and the provider's own logout (back-channel and front-channel) ending them in every instance.
///
/// Routes, under ``WebSignIn/basePath``:
/// - `POST {basePath}/signout`: ``signOut(_:returnTo:)``;
/// - `GET {basePath}/{provider}/signed-out`: ``finishSignOut(_:query:cookies:)``, the post-logout redirect URI;
/// - `POST {basePath}/{provider}/backchannel-logout`: ``backChannelLogout(_:body:contentType:)``;
/// - `GET {basePath}/{provider}/frontchannel-logout`: ``frontChannelLogout(_:query:current:)``.
extension WebSignIn {
    /// The sign-out route: `{basePath}/signout`.
    public var signOutPath: String { "\(basePath)/signout" }

    /// The post-logout redirect URI to register at `providerID`: `{origin}{basePath}/{provider}/signed-out`.
    public func postLogoutRedirectURI(for providerID: String) -> URL? {
        guard clients[providerID] != nil else { return nil }
        return URL(string: "\(origin.absoluteString)\(basePath)/\(providerID)/signed-out")
    }

    /// The back-channel logout URI to register at `providerID`: `{origin}{basePath}/{provider}/backchannel-logout`.
    public func backChannelLogoutURI(for providerID: String) -> URL? {
        guard clients[providerID] != nil else { return nil }
        return URL(string: "\(origin.absoluteString)\(basePath)/\(providerID)/backchannel-logout")
    }

    /// The front-channel logout URI to register at `providerID`: `{origin}{basePath}/{provider}/frontchannel-logout`.
    public func frontChannelLogoutURI(for providerID: String) -> URL? {
        guard clients[providerID] != nil else { return nil }
        return URL(string: "\(origin.absoluteString)\(basePath)/\(providerID)/frontchannel-logout")
    }

    // MARK: - Sessions

    /// Stores a finished sign-in under a fresh random account name, when there is a store.
    func store(_ outcome: OAuthClient.SignInOutcome, client: OAuthClient) async throws -> SessionKey? {
        guard let sessions else { return nil }
        let provider = client.provider
        let key = SessionKey(providerID: provider.id, account: "web-" + Base64URL.random(bytes: 18))
        let session = StoredSession(
            key: key, issuedBy: provider, clientID: client.configuration.clientID, redirectURI: client.configuration.redirectURI,
            tokens: outcome.tokens, updatedAt: clock.now(), clientAuthentication: try? client.configuration.authenticationMethod(for: provider),
            providerSession: outcome.idToken.map(ProviderSession.init))
        do {
            try await sessions.save(session)
        } catch {
            throw WebSignInError(.sessionStoreUnavailable, "the signed-in session could not be stored: \(error)")
        }
        return key
    }

    /// The session's access token, refreshed first when it has expired (once, however many requests ask).
    ///
    /// - Throws: `SessionError` `notSignedIn` when the session is gone (signed out, or ended by the
    ///   provider's logout on any instance), `signedOut` when the provider refused the refresh;
    ///   ``WebSignInError`` `configuration` without a store or for a provider not enabled.
    public func accessToken(for key: SessionKey) async throws -> Secret {
        try await manager(for: key).validAccessToken()
    }

    /// Whether the session is still stored and usable: false once it was signed out here, ended by the provider's
    /// logout or a security event (on any instance sharing the store), or marked by one for a new sign-in. Check it on
    /// each request that trusts the host's own session.
    ///
    /// - Throws: ``WebSignInError`` `configuration` without a store; store errors.
    public func isSignedIn(_ key: SessionKey) async throws -> Bool {
        guard let sessions else { throw WebSignInError(.configuration, "no session store was given to WebSignIn") }
        guard let session = try await sessions.load(key) else { return false }
        return session.reauthenticationRequired == nil
    }

    /// A token manager for a stored session.
    public func manager(for key: SessionKey) throws -> TokenManager {
        guard let sessions else { throw WebSignInError(.configuration, "no session store was given to WebSignIn") }
        guard let client = clients[key.providerID] else {
            throw WebSignInError(.unknownProvider, "no enabled provider is called \(key.providerID.debugDescription)")
        }
        return TokenManager(client: client, store: sessions, key: key)
    }

    // MARK: - Sign-out

    /// A sign-out between leaving for the provider's logout and coming back, sealed into a cookie.
    struct PendingSignOut: Codable, Sendable {
        var providerID: String
        var state: String?
        var returnTo: String
        var expiresAt: Date

        static func cookieName(state: String?) -> String {
            state.map { SealedCookie.name(prefix: "oauthflow_signout_", state: $0) } ?? "oauthflow_signout"
        }
    }

    /// Signs a stored session out: its tokens revoked (RFC 7009), the session removed, and the browser sent to
    /// the provider's end-session endpoint (RP-Initiated Logout 1.0, with the ID token as `id_token_hint` and a
    /// `state` sealed in a cookie), which returns it to ``postLogoutRedirectURI(for:)``.
    ///
    /// The host clears its own session before sending this response.
    ///
    /// - Parameters:
    ///   - key: The signed-in session's key, as ``WebSignInResult/session`` gave it; nil when nobody is signed in.
    ///   - returnTo: A same-origin path to end on (``ReturnPath/accept(_:)``).
    public func signOut(_ key: SessionKey?, returnTo: String? = nil) async -> WebResponse {
        let target = ReturnPath.accept(returnTo)
        guard let key, let client = clients[key.providerID], sessions != nil else { return Self.redirect(to: target) }
        let result: TokenManager.SignOut
        do {
            result = try await manager(for: key).signOut(
                endingProviderSession: .init(postLogoutRedirectURI: postLogoutRedirectURI(for: key.providerID)))
        } catch let error as SessionError where error.code == .notSignedIn {
            return Self.redirect(to: target)
        } catch let error as SessionError where error.code == .missingClientCredential {
            // The server's client lacks the credential revocation needs (its configuration's fault, not the user's): the
            // host has cleared its own session, so this one is removed unrevoked rather than left behind, and said.
            logger.warning(
                "sign-out: the client lacks the credential revocation needs; the session was removed unrevoked",
                metadata: ["provider": "\(key.providerID)", "reason": "\(TerminalText.escaped(error.message))"])
            try? await sessions?.remove(key)
            return Self.redirect(to: target)
        } catch {
            logger.error(
                "sign-out could not reach the session store",
                metadata: ["provider": "\(key.providerID)", "reason": "\(TerminalText.escaped("\(error)"))"])
            return WebSignInError(.sessionStoreUnavailable, "\(error)").page()
        }
        if let failure = result.revocationError {
            logger.warning(
                "sign-out: revocation failed; the session was removed",
                metadata: ["provider": "\(key.providerID)", "reason": "\(TerminalText.escaped("\(failure)"))"])
        }
        guard let request = result.endSession else {
            let name = client.provider.displayName
            logger.info(
                "sign-out: the provider's session stays",
                metadata: ["provider": "\(key.providerID)", "reason": "\(result.endSessionError.map { TerminalText.escaped("\($0)") } ?? "-")"])
            return WebHTML.page(
                title: "Signed out",
                body: """
                    <h1>Signed out</h1>
                    <p id="signed-out-here">You are signed out of this site. \(WebHTML.escape(name)) has no end-session endpoint, so your session there continues.</p>
                    <p><a href="\(WebHTML.escape(target))">Continue</a></p>
                    """)
        }
        let record = PendingSignOut(
            providerID: key.providerID, state: request.state?.value, returnTo: target, expiresAt: clock.now().addingTimeInterval(pendingLifetime))
        let name = PendingSignOut.cookieName(state: record.state)
        var headers: [(name: String, value: String)] = [
            ("Location", request.url.absoluteString), ("Cache-Control", "no-store"), ("Referrer-Policy", "no-referrer"),
        ]
        if let value = try? SealedCookie.seal(record, name: name, purpose: "signout", keyring: keyring) {
            let cookie = SetCookie(
                name: name, value: value, path: "\(basePath)/\(key.providerID)/signed-out", maxAge: Int(pendingLifetime), secure: secureCookies,
                sameSite: "Lax")
            headers.append(("Set-Cookie", cookie.header))
        }
        logger.info("signed out; ending the provider's session", metadata: ["provider": "\(key.providerID)"])
        return WebResponse(status: 303, headers: headers, body: "")
    }

    /// The browser's return from the provider's logout: when the provider returns `state`, it must be the one
    /// sealed in this browser's sign-out cookie (compared in constant time). Then the browser goes on to the
    /// sign-out's return path. The session here ended before the browser left, whatever this finds.
    public func finishSignOut(_ providerID: String, query: String?, cookies: [String: String]) -> WebResponse {
        guard let client = clients[providerID] else {
            return WebSignInError(.unknownProvider, "no enabled provider is called \(providerID.debugDescription)").page()
        }
        let expectsState = client.provider.policy.logout.returnsState
        let returned = FormEncoding.decode(query ?? "").filter { $0.0 == "state" }.map(\.1)
        let state = expectsState ? returned.first : nil
        let name = PendingSignOut.cookieName(state: state)
        let clearing = SetCookie(
            name: name, value: "", path: "\(basePath)/\(providerID)/signed-out", maxAge: 0, secure: secureCookies, sameSite: "Lax"
        ).header
        var record: PendingSignOut?
        if let value = cookies[name], expectsState ? returned.count == 1 : true {
            record = try? SealedCookie.open(value, name: name, purpose: "signout", keyring: keyring, what: "sign-out")
        }
        guard let record, record.providerID == providerID, record.expiresAt > clock.now(),
            !expectsState || (record.state.map { Secret($0).constantTimeEquals(state ?? "") } ?? false)
        else {
            logger.warning("sign-out return refused: it does not match a sign-out started in this browser", metadata: ["provider": "\(providerID)"])
            var page = WebHTML.page(
                title: "Signed out",
                body: """
                    <h1>Signed out</h1>
                    <p role="alert" id="error" data-code="state_mismatch">You are signed out of this site, but this return from the provider does not match a sign-out started in this browser.</p>
                    <p><a href="/">Continue</a></p>
                    """)
            page.status = 400
            page.headers.append(("Set-Cookie", clearing))
            return page
        }
        var response = Self.redirect(to: record.returnTo)
        response.headers.append(("Set-Cookie", clearing))
        return response
    }

    // MARK: - The provider's logout

    /// A back-channel logout request from `providerID` (Back-Channel Logout 1.0 §2.5): the logout token is
    /// checked (`ProviderLogoutReceiver`) and the sessions it names end in the store. The answer is 200, or
    /// 400 with a JSON error, always `Cache-Control: no-store`; 404 for a provider not enabled, 501 without a store.
    public func backChannelLogout(_ providerID: String, body: Data, contentType: String?) async -> WebResponse {
        guard let receiver = logoutReceivers[providerID] else { return noReceiver(providerID) }
        let answer = await receiver.receiveBackChannel(body: body, contentType: contentType)
        return WebResponse(status: answer.status, headers: answer.headers, body: answer.body)
    }

    /// A front-channel logout request from `providerID` (Front-Channel Logout 1.0): with `iss` and `sid`, the
    /// sessions of that provider session end; without, `current` (this browser's session, which the adapter
    /// reads from the host's session) ends. Only for providers whose descriptor declares
    /// `logout.frontchannel_logout_supported`.
    public func frontChannelLogout(_ providerID: String, query: String?, current: SessionKey? = nil) async -> WebResponse {
        guard let receiver = logoutReceivers[providerID] else { return noReceiver(providerID) }
        let answer = await receiver.receiveFrontChannel(query: query, current: current?.providerID == providerID ? current : nil)
        return WebResponse(status: answer.status, headers: answer.headers, body: answer.body)
    }

    private func noReceiver(_ providerID: String) -> WebResponse {
        let known = clients[providerID] != nil
        return WebResponse(
            status: known ? 501 : 404, headers: [("Cache-Control", "no-store"), ("Content-Type", "application/json")],
            body: known
                ? #"{"error":"invalid_request","error_description":"this site keeps no sessions to end (WebSignIn has no session store)"}"#
                : #"{"error":"invalid_request","error_description":"no such provider"}"#)
    }

    /// The answer to a request that changes state (`POST {basePath}/signout`) made by a page of another site (cross-site
    /// request forgery): 403, before anything is done; nil for this site's. A browser says where a request came from in
    /// `Sec-Fetch-Site` (`same-origin` or `none` are this site's); one that does not, in `Origin` (`null` included),
    /// compared with ``origin``. A request with neither (not from a browser) goes through: nothing tells it apart.
    package func crossSiteRefusal(fetchSite: String?, origin requestOrigin: String?) -> WebResponse? {
        let crossSite: Bool
        if let fetchSite {
            crossSite = !["same-origin", "none"].contains(fetchSite.lowercased())
        } else if let requestOrigin {
            crossSite = requestOrigin.lowercased() != Self.serialized(origin)
        } else {
            crossSite = false
        }
        guard crossSite else { return nil }
        logger.warning("a request from another site was refused", metadata: ["path": "\(signOutPath)"])
        return WebResponse(
            status: 403, headers: [("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", "no-store")],
            body: "Refused: this request came from another site.")
    }

    /// An origin as a browser's `Origin` header writes it: scheme, host and a port only when not the scheme's default.
    private static func serialized(_ url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port.flatMap { ($0 == 443 && scheme == "https") || ($0 == 80 && scheme == "http") ? nil : ":\($0)" } ?? ""
        return scheme + "://" + (url.host?.lowercased() ?? "") + port
    }

    static func redirect(to path: String) -> WebResponse {
        WebResponse(status: 303, headers: [("Location", path), ("Cache-Control", "no-store")], body: "")
    }
}
