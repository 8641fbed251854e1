module example.com/plainmod

go 1.26
