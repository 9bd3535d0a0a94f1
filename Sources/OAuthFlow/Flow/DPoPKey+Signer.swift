import Crypto
import Foundation

extension DPoPKey {
    /// A DPoP private key that a device holds, such as a Secure Enclave key: it signs proofs, and the session keeps only
    /// ``keyReference``, by which its ``DPoPKey/Keeper`` finds the key again. ES256 (P-256) only.
    public protocol Signer: Sendable {
        /// The key's public half, sent in every proof's `jwk` header.
        var publicKey: P256.Signing.PublicKey { get }
        /// What the session stores in place of the private key; it must not be the private key itself.
        var keyReference: Data { get }
        /// An ES256 signature (ECDSA with P-256 and SHA-256) over `data`.
        func signature(for data: Data) throws -> P256.Signing.ECDSASignature
    }
}
