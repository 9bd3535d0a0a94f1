import Crypto
import Foundation
import OAuthFlow

/// The Secure Enclave's P-256 signing keys, as the keeper uses them: CryptoKit's `SecureEnclave` on Apple platforms
/// (`CryptoKitEnclaveKeys`), a software stand-in in the tests.
protocol EnclaveKeys: Sendable {
    var isAvailable: Bool { get }
    /// Whether the device's protected data is available now (unlocked since it started): a key that cannot be
    /// reopened then is gone, not waiting for the device.
    var isProtectedDataAvailable: Bool { get }
    /// A new key's data representation.
    func newKey() throws -> Data
    /// The public key of the key `reference` represents; throws when this device's enclave cannot use it.
    func publicKey(of reference: Data) throws -> P256.Signing.PublicKey
    func signature(for data: Data, with reference: Data) throws -> P256.Signing.ECDSASignature
}
