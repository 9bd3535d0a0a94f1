#if os(Linux) || os(Android)  // as Package.swift links async-http-client (AsyncHTTPClientTransport.swift)
/// The transport OAuthFlow uses unless given another: ``AsyncHTTPClientTransport`` on Linux,
/// `URLSessionTransport` on Apple platforms. Both take `timeout:` (the total deadline of a
/// request) and `maximumResponseSize:`.
public typealias DefaultHTTPTransport = AsyncHTTPClientTransport
#else
/// The transport OAuthFlow uses unless given another: ``AsyncHTTPClientTransport`` on Linux,
/// `URLSessionTransport` on Apple platforms. Both take `timeout:` (the total deadline of a
/// request) and `maximumResponseSize:`.
public typealias DefaultHTTPTransport = URLSessionTransport
#endif
