/// An error that names its failure with one of a fixed set of codes (``ErrorCode``): what the library's metrics
/// and spans report a failure by, never its message, which may quote a URL or a server's words.
package protocol CodedError: Error {
    associatedtype CodeDomain
    /// The failure, as one of its domain's codes.
    var code: ErrorCode<CodeDomain> { get }
}

extension CodedError {
    /// The code's name (`invalid_grant`, `timed_out`).
    package var codeName: String { code.description }
}
