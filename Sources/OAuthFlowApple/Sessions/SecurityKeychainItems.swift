#if canImport(Security)
import Foundation
import Security

/// ``KeychainItems`` with the Security framework: the only `SecItem*` calls of the package.
///
/// Every query names the data protection keychain (`kSecUseDataProtectionKeychain`: on macOS the iOS-style keychain,
/// where accessibility and access groups apply and no per-app access prompt appears; ignored on iOS), a generic
/// password, and the item's service, account and access group. Items are never synchronizable (the default).
struct SecurityKeychainItems: KeychainItems {
    private func query(_ item: KeychainItem) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecUseDataProtectionKeychain as String: true,
            kSecAttrService as String: item.service,
            kSecAttrAccount as String: item.account,
        ]
        if let group = item.accessGroup { query[kSecAttrAccessGroup as String] = group }
        return query
    }

    private func accessible(_ accessibility: KeychainTokenStore.Accessibility) -> CFString {
        switch accessibility {
        case .afterFirstUnlockThisDeviceOnly: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        case .afterFirstUnlock: kSecAttrAccessibleAfterFirstUnlock
        case .whenUnlockedThisDeviceOnly: kSecAttrAccessibleWhenUnlockedThisDeviceOnly
        case .whenUnlocked: kSecAttrAccessibleWhenUnlocked
        case .whenPasscodeSetThisDeviceOnly: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly
        }
    }

    func read(_ item: KeychainItem) throws -> Data? {
        try readOwned(item)?.data
    }

    func readOwned(_ item: KeychainItem) throws -> (data: Data, owner: Data?)? {
        var request = query(item)
        request[kSecReturnData as String] = true
        request[kSecReturnAttributes as String] = true
        request[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(request as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess else { throw KeychainStatus(status) }
        // With both asked for, one dictionary: the attributes, and the data under kSecValueData.
        guard let found = result as? [String: Any], let data = found[kSecValueData as String] as? Data else { throw KeychainStatus(errSecDecode) }
        return (data, found[kSecAttrGeneric as String] as? Data)
    }

    func add(_ item: KeychainItem, data: Data, owner: Data?, accessibility: KeychainTokenStore.Accessibility) throws {
        var attributes = query(item)
        attributes[kSecValueData as String] = data
        attributes[kSecAttrAccessible as String] = accessible(accessibility)
        if let owner { attributes[kSecAttrGeneric as String] = owner }
        let status = SecItemAdd(attributes as CFDictionary, nil)
        guard status == errSecSuccess else { throw KeychainStatus(status) }
    }

    func update(_ item: KeychainItem, data: Data, owner: Data?, accessibility: KeychainTokenStore.Accessibility) throws {
        var changes: [String: Any] = [
            kSecValueData as String: data,
            kSecAttrAccessible as String: accessible(accessibility),
        ]
        if let owner { changes[kSecAttrGeneric as String] = owner }
        let status = SecItemUpdate(query(item) as CFDictionary, changes as CFDictionary)
        guard status == errSecSuccess else { throw KeychainStatus(status) }
    }

    func accounts(service: String, accessGroup: String?) throws -> [String] {
        var request: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecUseDataProtectionKeychain as String: true,
            kSecAttrService as String: service,
            kSecReturnAttributes as String: true,
            kSecMatchLimit as String: kSecMatchLimitAll,
        ]
        if let accessGroup { request[kSecAttrAccessGroup as String] = accessGroup }
        var result: CFTypeRef?
        let status = SecItemCopyMatching(request as CFDictionary, &result)
        if status == errSecItemNotFound { return [] }
        guard status == errSecSuccess else { throw KeychainStatus(status) }
        // With the attributes asked for and no limit, an array of dictionaries, one per item.
        guard let found = result as? [[String: Any]] else { throw KeychainStatus(errSecDecode) }
        return found.compactMap { $0[kSecAttrAccount as String] as? String }
    }

    func delete(_ item: KeychainItem, ownedBy owner: Data?) throws {
        var request = query(item)
        if let owner { request[kSecAttrGeneric as String] = owner }
        let status = SecItemDelete(request as CFDictionary)
        guard status == errSecSuccess else { throw KeychainStatus(status) }
    }
}
#endif
