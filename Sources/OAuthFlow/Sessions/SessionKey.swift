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
