/// The kind of an OAuthFlow error, extensible without breaking callers.
///
/// Each error type declares its codes as static members in a constrained
/// extension (`extension ErrorCode where Domain == FlowError`), so `error.code ==
/// .stateMismatch` reads naturally, a code of one error type cannot be compared
/// with another's, and new codes can be added without breaking `switch`es.
public struct ErrorCode<Domain>: Sendable, Hashable, CustomStringConvertible {
    private let name: String

    /// A code of `Domain`; the package's other modules name the codes of their own error types with it.
    /// Hosts compare codes (`error.code == .stateMismatch`); they never make one.
    package init(_ name: String) {
        self.name = name
    }

    /// The code's snake-case name, such as `state_mismatch`.
    public var description: String { name }
}
