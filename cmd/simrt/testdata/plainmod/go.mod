module example.com/plainmod

go 1.26

require golang.org/x/sync v0.24.0
