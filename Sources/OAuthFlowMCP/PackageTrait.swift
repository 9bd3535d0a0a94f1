// OAuthFlowMCP is built only with the package trait MCP (Package.swift): without, it says so in one sentence.
#if !(MCP)
#error("OAuthFlowMCP needs the package trait MCP: .package(…, traits: [\"MCP\"]), or tick it in Xcode's package traits")
#endif
