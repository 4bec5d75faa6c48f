import Testing; import HummingbirdTesting
