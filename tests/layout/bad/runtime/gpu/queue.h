/* fixture: a queue header */
