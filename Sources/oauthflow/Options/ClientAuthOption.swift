import ArgumentParser
import OAuthFlow

/// `--client-auth`, checked by `validate()` and read as the library's type afterwards.
enum ClientAuthOption {
    static func validate(_ flag: String?) throws {
        guard let flag, ProviderDescriptor.ClientAuth.Method(rawValue: flag) == nil else { return }
        throw ValidationError(
            "--client-auth must be one of \(ProviderDescriptor.ClientAuth.Method.allCases.map(\.rawValue).joined(separator: ", ")), not \(flag)")
    }

    /// The method named, once ``validate(_:)`` has accepted it.
    static func method(_ flag: String?) -> ProviderDescriptor.ClientAuth.Method? {
        flag.flatMap(ProviderDescriptor.ClientAuth.Method.init(rawValue:))
    }
}
