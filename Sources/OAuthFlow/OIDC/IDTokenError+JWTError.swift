extension IDTokenError {
    /// A failure of the JOSE layer as an ID token's: the code of the same name, `malformed` or `keysUnavailable`, and
    /// the same sentence.
    init(_ error: JWTError) {
        let code: Code = error.code == .keysUnavailable ? .keysUnavailable : .malformed
        self.init(code, error.message)
    }
}
