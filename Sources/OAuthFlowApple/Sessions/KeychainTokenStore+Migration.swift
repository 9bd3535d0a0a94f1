import Foundation
import OAuthFlow

/// Moving a session from the service an earlier OAuthFlow used by default (`BUNDLE-ID.oauthflow`, different in each
/// extension) to ``KeychainTokenStore/defaultService``.
extension KeychainTokenStore {
    /// The session's item under the old default service; nil when the store's service was named.
    func legacyItem(_ key: SessionKey) -> KeychainItem? {
        legacyService.map { KeychainItem(service: $0, account: Self.account(for: key), accessGroup: accessGroup) }
    }

    /// On a miss, the session kept under the old default service, moved to this store's service: added there (never
    /// written over a session another process moved or saved meanwhile, which wins), then deleted from the old one.
    ///
    /// - Returns: The session's data now under this store's service, or nil when neither service holds one.
    func migrateLegacy(_ key: SessionKey) throws -> Data? {
        guard let legacy = legacyItem(key), let data = try read(legacy) else { return nil }
        let item = item(key)
        do {
            try items.add(item, data: data, owner: nil, accessibility: accessibility)
        } catch let status as KeychainStatus where status == .duplicateItem {
            // Another process moved it, or signed in, first: its item is the session.
            try delete(legacy)
            return try read(item)
        } catch let status as KeychainStatus {
            throw failure(status, "write", item)
        }
        try delete(legacy)
        return data
    }
}
