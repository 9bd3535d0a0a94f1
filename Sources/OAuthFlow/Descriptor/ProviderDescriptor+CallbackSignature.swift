extension ProviderDescriptor.Authorization {
    /// A signature the provider puts in the authorization callback, made with the client secret over the
    /// callback's other parameters (Shopify's `hmac`): the engine checks it before the code is exchanged.
    package struct CallbackSignature: Sendable, Hashable, Codable {
        /// How the signature is made.
        package enum Algorithm: String, Sendable, Hashable, Codable, CaseIterable {
            /// HMAC-SHA256 keyed with the client secret over the other parameters, sorted by name and joined as
            /// `name=value` pairs with `&`, sent as lowercase hex.
            case hmacSHA256Hex = "hmac_sha256_hex"
        }

        /// The callback parameter carrying the signature.
        package var parameter = "hmac"
        package var algorithm: Algorithm = .hmacSHA256Hex

        enum CodingKeys: String, CodingKey {
            case parameter, algorithm
        }

        package init() {}

        package init(from decoder: any Decoder) throws { try self.init(plain: PlainObject(from: decoder)) }

        init(plain o: PlainObject) throws {
            let defaults = Self()
            parameter = try o.string(CodingKeys.parameter) ?? defaults.parameter
            algorithm = try o.choice(CodingKeys.algorithm) ?? defaults.algorithm
        }
    }
}

// The schema's `authorization.callback_signature` keys: their shapes, defaults and reference sentences.
extension DescriptorSchema {
    static let callbackSignatureFields: [Field] = [
        Field(
            "parameter", .string(pattern: "^[A-Za-z0-9_.-]+$"), default: ProviderDescriptor.Authorization.CallbackSignature().parameter,
            "The callback parameter carrying the signature."),
        Field(
            "algorithm", default: ProviderDescriptor.Authorization.CallbackSignature().algorithm,
            "`hmac_sha256_hex`: HMAC-SHA256 keyed with the client secret over the callback's other parameters, sorted by name and joined as `name=value` with `&`, in lowercase hex."
        ),
    ]
}
