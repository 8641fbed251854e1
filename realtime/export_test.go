package realtime

// Connect is connect for the external tests of this directory.
var Connect = connect
