import Crypto
import Foundation

extension DPoPKey {
    /// Makes device-held DPoP keys of one kind and finds them again by the reference a session stores.
    ///
    /// Register it once at launch (``DPoPKey/register(_:)``), so that stored sessions find their keys; make a sign-in's key
    /// with it inside ``DPoPKey/keeping(in:isolation:_:)``.
    public protocol Keeper: Sendable {
        /// The kind of key it keeps (`secure-enclave`), stored with each reference; one keeper per name in a process.
        var name: String { get }
        /// A new key.
        func newSigner() throws -> any DPoPKey.Signer
        /// The key `keyReference` names.
        ///
        /// - Throws: ``FlowError`` `dpopKeyMissing` when the key is gone (a restored backup, another device).
        func signer(for keyReference: Data) throws -> any DPoPKey.Signer
    }
}
