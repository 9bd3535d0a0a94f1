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

        package init() {}
    }
}

// The schema's `authorization.callback_signature` keys: their shapes, defaults and reference sentences.
extension DescriptorSchema {
    static let callbackSignatureFields: [SectionKey<ProviderDescriptor.Authorization.CallbackSignature>] = [
        SectionKey(
            \.parameter, { $0.parameter = $1 }, "parameter", .string(pattern: "^[A-Za-z0-9_.-]+$"),
            default: ProviderDescriptor.Authorization.CallbackSignature().parameter,
            "The callback parameter carrying the signature."),
        SectionKey(
            \.algorithm, { $0.algorithm = $1 }, "algorithm", default: ProviderDescriptor.Authorization.CallbackSignature().algorithm,
            "`hmac_sha256_hex`: HMAC-SHA256 keyed with the client secret over the callback's other parameters, sorted by name and joined as `name=value` with `&`, in lowercase hex."
        ),
    ]
}

extension ProviderDescriptor.Authorization.CallbackSignature: DescriptorSection {
    package static var keys: [SectionKey<Self>] { DescriptorSchema.callbackSignatureFields }
}
