import Foundation

/// Names one stored session: a provider and an account at it.
public struct SessionKey: Sendable, Hashable, Codable, CustomStringConvertible {
    public var providerID: String
    /// A local name for the account, so one provider can hold several sessions.
    public var account: String

    public init(providerID: String, account: String = "default") {
        self.providerID = providerID
        self.account = account
    }

    public var description: String { account == "default" ? providerID : "\(providerID)/\(account)" }
}

/// Everything needed to use a session later without asking the user again.
///
/// The client secret is never stored: confidential clients give it again by
/// reference (an environment variable or a file) when they refresh.
public struct StoredSession: Sendable, Hashable, Codable {
    public static let currentFormatVersion = 1

    public var formatVersion: Int
    public var key: SessionKey
    /// The variables the provider was resolved with.
    public var variables: [String: String]
    public var clientID: String
    public var redirectURI: URL
    /// The tokens; expiry is stored as an absolute time.
    public var tokens: TokenSet
    public var updatedAt: Date

    public init(key: SessionKey, variables: [String: String], clientID: String, redirectURI: URL, tokens: TokenSet, updatedAt: Date) {
        self.formatVersion = Self.currentFormatVersion
        self.key = key
        self.variables = variables
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.tokens = tokens
        self.updatedAt = updatedAt
    }

    /// The granted scopes.
    public var scopes: [String] { tokens.scopes }
}
