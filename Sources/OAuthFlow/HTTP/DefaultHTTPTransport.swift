#if (os(Linux) || os(Android)) && NIO  // as Package.swift links async-http-client (AsyncHTTPClientTransport.swift)
/// The transport OAuthFlow uses unless given another: ``AsyncHTTPClientTransport`` on Linux with the package trait
/// `NIO`, `URLSessionTransport` on Apple platforms and on Linux without it. Both take `timeout:` (the total deadline of
/// a request) and `maximumResponseSize:`.
public typealias DefaultHTTPTransport = AsyncHTTPClientTransport
#else
/// The transport OAuthFlow uses unless given another: `AsyncHTTPClientTransport` on Linux with the package trait
/// `NIO`, ``URLSessionTransport`` on Apple platforms and on Linux without it. Both take `timeout:` (the total deadline
/// of a request) and `maximumResponseSize:`.
public typealias DefaultHTTPTransport = URLSessionTransport
#endif
