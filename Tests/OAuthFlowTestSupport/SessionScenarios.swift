import Foundation
import OAuthFlow
import Testing

/// A session as the store tests keep it.
public func sampleSession(_ provider: String = "example", access: String = "access-1", refresh: String? = "refresh-1",
                          expiresAt: Date? = Date(timeIntervalSince1970: 2_000_000_000)) -> StoredSession {
    StoredSession(key: SessionKey(providerID: provider), variables: ["tenant": "acme"], clientID: "client",
                  redirectURI: URL(string: "http://127.0.0.1/callback")!,
                  tokens: TokenSet(accessToken: Secret(access), tokenType: "bearer", expiresAt: expiresAt,
                                   refreshToken: refresh.map(Secret.init), idToken: nil, scopes: ["openid", "email"],
                                   issuedAt: Date(timeIntervalSince1970: 1_900_000_000)),
                  updatedAt: Date(timeIntervalSince1970: 1_900_000_000))
}

/// A token endpoint's JSON answer.
public func tokenResponse(_ access: String, refresh: String? = nil) -> TransportResponse {
    var body = #"{"access_token":"\#(access)","token_type":"Bearer","expires_in":3600"#
    if let refresh { body += #","refresh_token":"\#(refresh)""# }
    return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data((body + "}").utf8))
}

/// A refresh interrupted between its answer and the answer's ID-token check, for any store: the
/// answer carries a rotated refresh token and a forged ID token, whose check stalls and fails.
public enum InterruptedRefresh {
    public static let verifiedIDToken = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.verified"
    public static let forgedIDToken = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJtYWxsb3J5In0.forged"

    public static func provider() throws -> Provider {
        try TestDescriptor(protocol: .oidc).with(endpoints: [("jwks", "https://auth.example.com/jwks")]).provider()
    }

    public static func session() -> StoredSession {
        var session = sampleSession(expiresAt: Date().addingTimeInterval(-10))
        session.tokens.idToken = Secret(verifiedIDToken)
        return session
    }

    /// Answers the refresh with a rotated refresh token and a forged ID token, then stalls the
    /// JWKS fetch of its check for 2 s and fails it.
    public static func stallingTransport() -> ScriptedTransport {
        let answered = Locked(false)
        return ScriptedTransport { request, _ in
            if request.url.path == "/jwks" {
                // The keys fetched ahead of the refresh fail at once; the check after the answer stalls.
                guard answered.current else { return TransportResponse(status: 500) }
                try await Task.sleep(nanoseconds: 2_000_000_000)
                return TransportResponse(status: 500)
            }
            answered.withLock { $0 = true }
            let body = #"{"access_token":"access-2","token_type":"Bearer","expires_in":3600,"refresh_token":"refresh-2","id_token":"\#(forgedIDToken)"}"#
            return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
        }
    }

    /// Starts a refresh that stalls in its ID-token check, waits until `recorded` says the answer
    /// is durable, and returns the task.
    public static func stalledRefresh(store: any TokenStore, key: SessionKey, recorded: @escaping @Sendable () async throws -> Bool) async throws
        -> Task<Void, Never> {
        let client = OAuthClient(provider: try provider(), configuration: ClientConfiguration(
            clientID: "client", redirectURI: URL(string: "http://127.0.0.1/callback")!), environment: OAuthEnvironment(transport: stallingTransport()))
        let manager = TokenManager(client: client, store: store, key: key)
        let task = Task { _ = try? await manager.refresh() }
        var seen = false
        for _ in 0..<500 {
            seen = try await recorded()
            if seen { break }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        #expect(seen, "the refresh answer was recorded")
        return task
    }

    /// What the next run must see: the new refresh token, the verified ID token, no usable access token.
    public static func expectOnlyTheRefreshTokenAdopted(_ adopted: StoredSession?) {
        #expect(adopted?.tokens.refreshToken?.value == "refresh-2", "the rotated refresh token is kept: the old one is spent")
        #expect(adopted?.tokens.idToken?.value == verifiedIDToken, "the unchecked ID token is not adopted")
        #expect(adopted?.tokens.accessToken.value != "access-2", "the unchecked answer's access token is not handed out")
        #expect(adopted?.tokens.isExpired(at: Date(), skew: 60) == true, "the next use refreshes, and checks, again")
    }

}
