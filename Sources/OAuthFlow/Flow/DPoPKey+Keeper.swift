import Crypto
import Foundation

extension ErrorCode where Domain == FlowError {
    /// The device no longer holds the session's DPoP key (a restored backup, a new device): the tokens bound to it
    /// cannot be used, and nothing was sent with them. Sign in again.
    public static let dpopKeyMissing = Self("dpop_key_missing")
}

extension FlowError {
    /// What a ``DPoPKey/Keeper`` throws when the key a session names is gone.
    public static func dpopKeyMissing(_ message: String) -> FlowError { FlowError(.dpopKeyMissing, message) }
}

extension DPoPKey {
    /// The keepers that find stored sessions' keys, by name.
    private static let keepers = Locked<[String: any DPoPKey.Keeper]>([:])

    /// The keeper that makes the DPoP keys of the task's sign-ins (``keeping(in:isolation:_:)``).
    @TaskLocal static var newKeysKeeper: (any DPoPKey.Keeper)?

    /// Lets stored sessions whose DPoP keys `keeper` holds sign proofs in this process: register it at launch, before
    /// the first session is used. A later keeper of the same name replaces it.
    public static func register(_ keeper: any DPoPKey.Keeper) {
        keepers.withLock { $0[keeper.name] = keeper }
    }

    /// Runs `body` with every ES256 DPoP key it makes (a sign-in's, ``OAuthClient/startAuthorization()``) made by
    /// `keeper`, which is also registered (``register(_:)``): the session stores the key's reference, never the key.
    ///
    /// - Throws: what `body` throws; inside it, ``FlowError`` `dpop` when a provider asks for another algorithm than ES256.
    public static func keeping<T>(
        in keeper: any DPoPKey.Keeper, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async rethrows -> T {
        register(keeper)
        return try await $newKeysKeeper.withValue(keeper, operation: body)
    }

    /// The name of the keeper that holds the private key (``DPoPKey/Keeper/name``); nil when the session holds it.
    public var keeper: String? {
        guard case let .external(key) = material else { return nil }
        return key.keeper
    }

    /// A new key made by `keeper`.
    static func generate(_ algorithm: JWSAlgorithm, in keeper: any DPoPKey.Keeper) throws -> DPoPKey {
        guard algorithm == .es256 else {
            throw FlowError(
                .dpop, "DPoP keys kept by `\(keeper.name)` are ES256, and the provider's DPoP algorithm is \(algorithm.rawValue)")
        }
        let signer: any DPoPKey.Signer
        do {
            signer = try keeper.newSigner()
        } catch let error as FlowError {
            throw error
        } catch {
            throw FlowError(.dpop, "`\(keeper.name)` could not make a DPoP key (\(error))")
        }
        let key = ExternalKey(keeper: keeper.name, reference: signer.keyReference)
        key.resolved.withLock { $0 = signer }
        return try DPoPKey(external: key, publicKey: signer.publicKey)
    }

    /// A key `key` names, with `publicKey` its public half.
    private init(external key: ExternalKey, publicKey: P256.Signing.PublicKey) throws {
        guard let jwk = Self.jwk(of: publicKey) else { throw FlowError(.dpop, "the DPoP key of `\(key.keeper)` is not a P-256 key") }
        self.algorithm = .es256
        self.publicJWK = jwk
        self.thumbprint = Self.thumbprint(of: jwk)
        self.pem = nil
        self.material = .external(key)
    }

    /// The JWK of a P-256 public key (RFC 7518 §6.2.1); nil for another size.
    static func jwk(of publicKey: P256.Signing.PublicKey) -> [String: String]? {
        let point = publicKey.x963Representation
        guard point.count == 65 else { return nil }
        return ["kty": "EC", "crv": "P-256", "x": Base64URL.encode(point.dropFirst().prefix(32)), "y": Base64URL.encode(point.suffix(32))]
    }

    /// A stored key that a keeper holds: `{"alg": "ES256", "keeper": NAME, "ref": BASE64URL, "jwk": {…}}`.
    init(external container: KeyedDecodingContainer<CodingKeys>, algorithm: JWSAlgorithm) throws {
        let keeper = try container.decode(String.self, forKey: .keeper)
        let jwk = try container.decode([String: String].self, forKey: .jwk)
        guard algorithm == .es256, jwk["kty"] == "EC", jwk["crv"] == "P-256", let x = jwk["x"].flatMap({ Base64URL.decode($0) }),
            let y = jwk["y"].flatMap({ Base64URL.decode($0) }), x.count == 32, y.count == 32,
            let publicKey = try? P256.Signing.PublicKey(x963Representation: Data([4]) + x + y)
        else {
            throw DecodingError.dataCorruptedError(forKey: .jwk, in: container, debugDescription: "not the ES256 public key of a kept DPoP key")
        }
        guard let reference = Base64URL.decode(try container.decode(String.self, forKey: .reference)) else {
            throw DecodingError.dataCorruptedError(forKey: .reference, in: container, debugDescription: "not base64url")
        }
        try self.init(external: ExternalKey(keeper: keeper, reference: reference), publicKey: publicKey)
    }

    /// A key a keeper holds: its name and the key's reference, and the signer once found.
    final class ExternalKey: Sendable {
        let keeper: String
        let reference: Data
        let resolved = Locked<(any DPoPKey.Signer)?>(nil)

        init(keeper: String, reference: Data) {
            self.keeper = keeper
            self.reference = reference
        }

        func encode(into container: inout KeyedEncodingContainer<DPoPKey.CodingKeys>, publicJWK: [String: String]) throws {
            try container.encode(keeper, forKey: .keeper)
            try container.encode(Base64URL.encode(reference), forKey: .reference)
            try container.encode(publicJWK, forKey: .jwk)
        }

        /// The signer, found by the registered keeper the first time.
        private func signer(expecting thumbprint: String) throws -> any DPoPKey.Signer {
            if let signer = resolved.current { return signer }
            guard let keeper = DPoPKey.keepers.withLock({ $0[self.keeper] }) else {
                throw FlowError(
                    .dpop,
                    "the session's DPoP key is kept by `\(keeper)`, and no keeper of that name is registered in this process (DPoPKey.register(_:) at launch)"
                )
            }
            let signer = try keeper.signer(for: reference)
            guard let jwk = DPoPKey.jwk(of: signer.publicKey), DPoPKey.thumbprint(of: jwk) == thumbprint else {
                throw FlowError(
                    .dpopKeyMissing,
                    "`\(keeper.name)` holds another key than the session's DPoP key: the session's tokens cannot be used; sign in again")
            }
            resolved.withLock { $0 = signer }
            return signer
        }

        /// A compact JWS of `claims` under `header`, signed by the kept key, whose thumbprint is `thumbprint`.
        func sign(_ claims: [String: JSONValue], header: [String: JSONValue], thumbprint: String) throws -> String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let signer = try signer(expecting: thumbprint)
            let input = Base64URL.encode(try encoder.encode(header)) + "." + Base64URL.encode(try encoder.encode(claims))
            do {
                return input + "." + Base64URL.encode(try signer.signature(for: Data(input.utf8)).rawRepresentation)
            } catch let error as FlowError {
                throw error
            } catch {
                throw FlowError(.dpop, "`\(keeper)` could not sign a DPoP proof (\(error))")
            }
        }
    }
}
