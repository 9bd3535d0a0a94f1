import Foundation

/// Whether the device's protected data is available now (it has been unlocked since it started), asked of the
/// keychain: an item readable after first unlock (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`, the class of
/// CryptoKit's Secure Enclave keys by default) is read, or added when there is none. The keychain answers
/// `errSecInteractionNotAllowed` before the first unlock.
///
/// Asked of the keychain rather than of `UIApplication.isProtectedDataAvailable`, which is main-actor only and has no
/// `UIApplication.shared` in an app extension. Any answer but the item (or its add) is "not available": whoever asks
/// keeps what it has.
struct ProtectedData: Sendable {
    let items: any KeychainItems

    /// The probe: one small item, outside every token store's service, in the process's default access group.
    static let probe = KeychainItem(service: "OAuthFlow.protected-data", account: "probe", accessGroup: nil)

    var isAvailable: Bool {
        do {
            if try items.read(Self.probe) != nil { return true }
            try items.add(Self.probe, data: Data([1]), owner: nil, accessibility: .afterFirstUnlockThisDeviceOnly)
            return true
        } catch let status as KeychainStatus where status == .duplicateItem {
            return true  // another process added it meanwhile: the keychain took a write of this class
        } catch {
            return false
        }
    }
}
