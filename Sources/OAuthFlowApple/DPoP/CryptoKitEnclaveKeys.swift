#if canImport(CryptoKit)
import CryptoKit
import Foundation

/// ``EnclaveKeys`` with CryptoKit's `SecureEnclave`: the package's only Secure Enclave calls.
///
/// Keys are made with CryptoKit's default access control (after first unlock, this device only, no user presence).
struct CryptoKitEnclaveKeys: EnclaveKeys {
    var isAvailable: Bool { SecureEnclave.isAvailable }

    #if canImport(Security)
    var isProtectedDataAvailable: Bool { ProtectedData(items: SecurityKeychainItems()).isAvailable }
    #else
    var isProtectedDataAvailable: Bool { false }
    #endif

    func newKey() throws -> Data {
        try SecureEnclave.P256.Signing.PrivateKey().dataRepresentation
    }

    func publicKey(of reference: Data) throws -> P256.Signing.PublicKey {
        try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: reference).publicKey
    }

    func signature(for data: Data, with reference: Data) throws -> P256.Signing.ECDSASignature {
        try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: reference).signature(for: data)
    }
}
#endif
