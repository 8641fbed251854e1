package main

//simrt:allow-file too late // want "simrt:allow-file belongs above the package clause"

import "time"

func later() { time.Sleep(time.Second) } // want `time.Sleep sleeps in real time`
