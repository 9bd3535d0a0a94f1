import Crypto
import Foundation
@testable import OAuthFlowApple

/// A Secure Enclave stand-in for one device: its keys are software P-256 keys sealed (AES-GCM) under the device's own
/// key, so that, as with Apple's, a key's data representation is usable on the device that made it and nowhere else.
struct SoftwareEnclave: EnclaveKeys {
    let device = SymmetricKey(size: .bits256)
    var isAvailable = true
    /// The error (domain, code) the enclave answers every use with (a transient failure), when set.
    var failing: (domain: String, code: Int)?
    /// The error (domain, code) a key of another device (or a reset enclave) is refused with: `errSecItemNotFound`
    /// by default; what CryptoKit really reports is not known here.
    var foreignKey = (domain: "NSOSStatusErrorDomain", code: -25300)
    /// The device's keychain, which says whether protected data is available (`ProtectedData`); none: it is.
    var keychain: InMemoryKeychain?

    var isProtectedDataAvailable: Bool { keychain.map { ProtectedData(items: $0).isAvailable } ?? true }

    struct NotThisDevice: Error {}

    /// What the Security framework reports for a key it does not hold: `errSecItemNotFound`.
    static var itemNotFound: NSError { NSError(domain: "NSOSStatusErrorDomain", code: -25300) }

    private func privateKey(_ reference: Data) throws -> P256.Signing.PrivateKey {
        if let failing { throw NSError(domain: failing.domain, code: failing.code) }
        guard let raw = try? AES.GCM.open(AES.GCM.SealedBox(combined: reference), using: device) else {
            throw NSError(domain: foreignKey.domain, code: foreignKey.code)
        }
        return try P256.Signing.PrivateKey(rawRepresentation: raw)
    }

    func newKey() throws -> Data {
        guard let sealed = try AES.GCM.seal(P256.Signing.PrivateKey().rawRepresentation, using: device).combined else { throw NotThisDevice() }
        return sealed
    }

    func publicKey(of reference: Data) throws -> P256.Signing.PublicKey {
        try privateKey(reference).publicKey
    }

    func signature(for data: Data, with reference: Data) throws -> P256.Signing.ECDSASignature {
        try privateKey(reference).signature(for: data)
    }
}
