// OAuthFlowFiles: what reading a stored session takes, with the Swift standard library and the C
// library only. The `oauthflow` launcher links nothing else, so answering a valid token costs about
// what starting git's own credential helper does; OAuthFlow's FileTokenStore uses the same code.
#if canImport(Glibc)
@_exported import Glibc
#elseif canImport(Musl)
@_exported import Musl
#elseif canImport(Darwin)
@_exported import Darwin
#endif
