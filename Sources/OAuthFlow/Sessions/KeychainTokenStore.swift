#if canImport(Security)
import Foundation
import Security

/// Sessions in the Apple keychain, as generic passwords (Apple platforms only).
///
/// Each session is one item: service `OAuthFlow` (or the one given), account
/// `provider--account`, data the session as JSON, readable only while the device
/// is unlocked and never synced or migrated to another device. Cross-process
/// locking is not offered: on Apple platforms one app owns its keychain items.
///
/// This file is not compiled on Linux, where the project is built and tested.
public struct KeychainTokenStore: TokenStore {
    public let service: String

    public init(service: String = "OAuthFlow") {
        self.service = service
    }

    private func query(_ key: SessionKey) -> [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: "\(key.providerID)--\(key.account)",
        ]
    }

    public func load(_ key: SessionKey) async throws -> StoredSession? {
        var request = query(key)
        request[kSecReturnData as String] = true
        request[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(request as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let data = result as? Data else {
            throw TokenStoreError(.io, "keychain read failed with status \(status)")
        }
        do {
            return try StoredSession.decoded(from: data)
        } catch {
            throw TokenStoreError(.corrupt, "the keychain item for \(key) is not a readable session")
        }
    }

    public func save(_ session: StoredSession) async throws {
        let data = try session.encoded()
        let attributes: [String: Any] = [
            kSecValueData as String: data,
            kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
        ]
        // SecItemUpdate replaces the item in one step, so a reader never sees it missing.
        var status = SecItemUpdate(query(session.key) as CFDictionary, attributes as CFDictionary)
        if status == errSecItemNotFound {
            status = SecItemAdd(query(session.key).merging(attributes) { _, new in new } as CFDictionary, nil)
        }
        guard status == errSecSuccess else {
            throw TokenStoreError(.io, "keychain write failed with status \(status)")
        }
    }

    public func remove(_ key: SessionKey) async throws {
        let status = SecItemDelete(query(key) as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else {
            throw TokenStoreError(.io, "keychain delete failed with status \(status)")
        }
    }

    public func lock(_ key: SessionKey) async throws -> any TokenStoreLock { NoLock() }

    private struct NoLock: TokenStoreLock {
        func release() {}
    }
}
#endif
