import Crypto
import Foundation
import OAuthFlow

/// DPoP keys in the Secure Enclave (ES256): the session keeps the key's `dataRepresentation`, a handle only this
/// device's Secure Enclave can use, never the private key.
///
/// Register it at launch and make sign-ins' keys with it:
///
/// ```swift
/// DPoPKey.register(SecureEnclaveDPoPKeys())
/// let result = try await DPoPKey.keeping(in: SecureEnclaveDPoPKeys()) { try await signIn() }
/// ```
public struct SecureEnclaveDPoPKeys: DPoPKey.Keeper {
    public var name: String { "secure-enclave" }
    let keys: any EnclaveKeys

    #if canImport(CryptoKit)
    public init() {
        self.init(keys: CryptoKitEnclaveKeys())
    }
    #endif

    init(keys: any EnclaveKeys) {
        self.keys = keys
    }

    /// A new P-256 key in the Secure Enclave.
    ///
    /// - Throws: `FlowError` `dpop` on a device without one (`SecureEnclave.isAvailable`: a Mac without Apple silicon
    ///   or a T2 chip, some simulators).
    public func newSigner() throws -> any DPoPKey.Signer {
        guard keys.isAvailable else {
            throw FlowError.dpopRefused("this device has no Secure Enclave to hold a DPoP key (SecureEnclave.isAvailable is false)")
        }
        let reference: Data
        do {
            reference = try keys.newKey()
        } catch {
            throw FlowError.dpopRefused("the Secure Enclave could not make a DPoP key (\(error))")
        }
        return try signer(for: reference)
    }

    /// The key `keyReference` names.
    ///
    /// - Throws: `FlowError` `dpopKeyMissing` when this device's Secure Enclave does not hold it (`errSecItemNotFound`:
    ///   sign in again); `dpopKeyUnavailable` when the Secure Enclave could not use it now (any other error: the
    ///   session is kept, try again later).
    public func signer(for keyReference: Data) throws -> any DPoPKey.Signer {
        do {
            return Signer(keys: keys, keyReference: keyReference, publicKey: try keys.publicKey(of: keyReference))
        } catch {
            throw Self.failure(error)
        }
    }

    /// What an error of the Secure Enclave means for the session: only a key that is not there
    /// (`errSecItemNotFound` in `NSOSStatusErrorDomain`) ends it.
    static func failure(_ error: any Error) -> FlowError {
        let bridged = error as NSError
        guard bridged.domain == "NSOSStatusErrorDomain", bridged.code == Int(KeychainStatus.itemNotFound.status) else {
            return FlowError(
                .dpopKeyUnavailable,
                "the Secure Enclave could not use the session's DPoP key now (\(bridged.domain) \(bridged.code)); the session is kept and nothing was sent: try again later"
            )
        }
        return FlowError.dpopKeyMissing(
            "the session's DPoP key is not in this device's Secure Enclave (a session restored from a backup, or moved to another device): its tokens cannot be used, and nothing was sent; sign in again"
        )
    }

    struct Signer: DPoPKey.Signer {
        let keys: any EnclaveKeys
        let keyReference: Data
        let publicKey: P256.Signing.PublicKey

        func signature(for data: Data) throws -> P256.Signing.ECDSASignature {
            try keys.signature(for: data, with: keyReference)
        }
    }
}

extension ErrorCode where Domain == FlowError {
    /// The Secure Enclave could not use a session's DPoP key now, for another reason than the key being gone: nothing
    /// was sent and the session is kept; try again later (`dpopKeyMissing` is the key being gone: sign in again).
    public static let dpopKeyUnavailable = Self("dpop_key_unavailable")
}
