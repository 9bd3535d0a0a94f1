import Foundation

extension OAuth {
    /// What ``deleteAccount(_:account:)`` did.
    public struct AccountDeletion: Sendable {
        /// Every session of the user that was removed from the store: the one named first, then the others the store
        /// holds of the same user at the same provider.
        public let removed: [SessionKey]
        /// The sessions whose tokens were not revoked, with why. One the provider did not revoke (unreachable, an error
        /// answer) is kept in the store: call ``OAuth/deleteAccount(_:account:)`` again later with its account (each key
        /// here), which revokes and removes it. One whose tokens another authorization server issued (`SessionError`
        /// `session_mismatch`: the descriptor was re-pointed since) is removed, its tokens sent nowhere.
        public let revocationFailures: [SessionKey: any Error]
        /// Whether the provider has a revocation endpoint (RFC 7009; Apple's `/auth/revoke`): without one nothing
        /// could be revoked, and the tokens live until they expire.
        public let revocationAvailable: Bool

        /// Whether the provider revoked the tokens of every session removed: what App Review asks of a Sign in
        /// with Apple app whose user deletes their account (guideline 5.1.1(v)).
        public var revokedEverywhere: Bool { revocationAvailable && revocationFailures.isEmpty }
    }

    /// Deletes what this library holds of a user who deletes their account: every session of theirs at the provider
    /// (the one named, and every other the store lists for the same issuer and subject), each one's tokens revoked at
    /// the provider first (RFC 7009) and then removed.
    ///
    /// A session whose revocation fails is kept: call this again with each account the result lists, until
    /// ``AccountDeletion/revokedEverywhere``.
    ///
    /// - Parameters:
    ///   - name: The provider.
    ///   - account: The session that names the user.
    /// - Returns: What was removed and revoked.
    /// - Throws: ``SessionError`` `not_signed_in` when `account` has no session, ``ProviderError``, and store errors
    ///   (a store that cannot list or remove the sessions: nothing is taken for deleted that was not).
    public func deleteAccount(_ name: String, account: String = "default") async throws -> AccountDeletion {
        let key = SessionKey(providerID: name, account: account)
        guard let stored = try await store.load(key) else {
            _ = try descriptor(name)
            throw SessionError(.notSignedIn, "no stored session for \(key); there is nothing of this user to delete")
        }
        var keys = [key]
        if let directory = store as? any SessionDirectory, let user = stored.providerSession,
            let match = ProviderSession.Match(issuer: user.issuer, subject: user.subject, sessionID: nil)
        {
            keys += try await directory.keys(of: name, matching: match).filter { $0 != key }
        }
        var removed: [SessionKey] = []
        var failures: [SessionKey: any Error] = [:]
        var available = false
        for each in keys {
            let revocation: (available: Bool, failure: (any Error)?)
            do {
                // Revoked and removed under the store's lock (a refresh under way elsewhere finishes first); kept when
                // the revocation failed.
                revocation = try await session(name, account: each.account).revokeAndRemove()
            } catch let error as SessionError where error.code == .notSignedIn && each != key {
                continue  // removed meanwhile (another process signed it out): nothing left of it
            } catch let error as SessionError where error.code == .sessionMismatch {
                // Tokens another authorization server issued: not this provider's to revoke. Removed unrevoked, and said.
                forget(each)
                removed.append(each)
                failures[each] = error
                continue
            }
            available = available || revocation.available
            if let failure = revocation.failure {
                failures[each] = failure
                continue
            }
            forget(each)
            removed.append(each)
        }
        environment.logger.info(
            "account deleted", metadata: ["provider": "\(name)", "sessions": "\(removed.count)", "revocation_failures": "\(failures.count)"])
        return AccountDeletion(removed: removed, revocationFailures: failures, revocationAvailable: available)
    }
}
