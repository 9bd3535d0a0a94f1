import Foundation
import OAuthFlow

extension KeychainTokenStore: SessionDirectory {
    /// Lists the store's items of `providerID` (`PROVIDER/ACCOUNT`, not the items a session keeps beside it) and reads
    /// each: an item that cannot be decoded is skipped and left in place; any other failure (the device locked, say)
    /// is thrown, so that nothing is taken for absent that could not be read.
    public func keys(of providerID: String, matching match: ProviderSession.Match) async throws -> [SessionKey] {
        let prefix = Self.account(for: SessionKey(providerID: providerID, account: ""))
        let accounts: [String]
        do {
            accounts = try items.accounts(service: service, accessGroup: accessGroup)
        } catch let status as KeychainStatus {
            throw failure(status, "list", KeychainItem(service: service, account: prefix, accessGroup: accessGroup))
        }
        var keys: [SessionKey] = []
        for account in accounts.sorted() where account.hasPrefix(prefix) {
            let escaped = account.dropFirst(prefix.count)
            guard !escaped.contains("/"), let name = String(escaped).removingPercentEncoding else { continue }
            let key = SessionKey(providerID: providerID, account: name)
            let session: StoredSession?
            do {
                session = try await load(key)
            } catch let error as TokenStoreError where error.code == .corrupt {
                continue
            }
            if let session, match.matches(session.providerSession) { keys.append(key) }
        }
        return keys
    }
}
