// The clocks (FixedClock, MovableClock) are OAuthFlowTesting's, the product hosts test with;
// every test target that imports this module sees them.
@_exported import OAuthFlowTesting
