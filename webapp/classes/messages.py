"""What the classroom says, in English and 简体中文 (merged into webapp.i18n's catalogue)."""

from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    "class_not_found": {
        "en": 'There is no class with the code "{class_code}", or it has ended. Check the code with '
        "your teacher.",
        "zh": "没有代码为“{class_code}”的课堂，或者它已经结束。请和老师核对代码。",
    },
    "class_not_found_text": {
        "en": "There is no class with this code, or it has ended. Check the code with your "
        "teacher.",
        "zh": "没有这个代码的课堂，或者它已经结束。请和老师核对代码。",
    },
    "class_bad_key": {
        "en": "This is not the teacher key of class {class_code}.",
        "zh": "这不是课堂 {class_code} 的教师密钥。",
    },
    "class_bad_pin": {
        "en": "This is not the teacher PIN of class {class_code}.",
        "zh": "这不是课堂 {class_code} 的教师 PIN。",
    },
    "class_pin_rate_limited": {
        "en": "Too many teacher PIN tries: at most {limit} a minute from this address and for "
        "this class. Wait a minute and try again, or open the teacher link.",
        "zh": "教师 PIN 尝试次数太多：这个地址和这个课堂每分钟最多 {limit} 次。请等一分钟再试，或者打开教师链接。",
    },
    "class_name_invalid": {
        "en": "A display name has 1 to {limit} characters, and no control characters.",
        "zh": "显示名称需要 1 到 {limit} 个字符，且不能包含控制字符。",
    },
    "class_name_taken": {
        "en": 'Someone in this class is already called "{name}". Choose another name.',
        "zh": "这个课堂里已经有人叫“{name}”了。请换一个名字。",
    },
    "class_full": {
        "en": "This class is full: it takes at most {limit} students.",
        "zh": "这个课堂已满：最多 {limit} 名学生。",
    },
    "class_teacher_only": {
        "en": "Only the class's teacher can do that.",
        "zh": "只有课堂的老师可以这样做。",
    },
    "class_student_only": {
        "en": "Join a class as a student first.",
        "zh": "请先以学生身份加入一个课堂。",
    },
    "class_following": {
        "en": "You are following the teacher's run, which only the teacher drives. Press \"Try "
        'it myself" for a copy of your own.',
        "zh": "你正在跟随老师的运行，只有老师可以操作它。按“自己试试”获得一份属于你的副本。",
    },
    "class_editor_locked": {
        "en": "The teacher has locked the editor: you can act on the Pod, not change its YAML.",
        "zh": "老师锁定了编辑器：你可以对 Pod 执行操作，但不能修改它的 YAML。",
    },
    "class_session_private": {
        "en": "This run belongs to a class; only its own tabs reach it.",
        "zh": "这个运行属于一个课堂，只有它自己的标签页可以访问。",
    },
    "class_in_class": {
        "en": "This tab is in a class: it follows the class, not another session.",
        "zh": "这个标签页在课堂中：它跟随课堂，而不是别的会话。",
    },
    "class_names_rate_limited": {
        "en": "Too many new names from this connection or address. Wait a minute and try again.",
        "zh": "这个连接或地址新加入的名字太多了。请等一分钟再试。",
    },
    "class_codes_rate_limited": {
        "en": "Too many class codes that do not exist were tried from this address: at most "
        "{limit} a minute. Wait a minute and check the code with your teacher.",
        "zh": "这个地址尝试了太多不存在的课堂代码：每分钟最多 {limit} 个。请等一分钟，并和老师核对代码。",
    },
    "class_removed": {
        "en": "The teacher removed you from class {class_code}. You can join again with a name.",
        "zh": "老师已将你移出课堂 {class_code}。你可以用一个名字重新加入。",
    },
    "class_unknown_student": {
        "en": 'There is no student called "{name}" in this class.',
        "zh": "这个课堂里没有叫“{name}”的学生。",
    },
    "class_unknown_question": {
        "en": 'There is no open question "{id}".',
        "zh": "没有正在进行的问题“{id}”。",
    },
    "class_bad_choice": {
        "en": "Choose one of the {count} answers.",
        "zh": "请从 {count} 个答案中选择一个。",
    },
    "class_rate_limited": {
        "en": "Too many requests from this student: at most {limit} per second.",
        "zh": "这位学生的请求太多了：每秒最多 {limit} 次。",
    },
    "quiz_unanswerable": {
        "en": 'Question "{id}" has no single right answer in this run (none or several choices '
        "hold): the scenario's question needs fixing.",
        "zh": "问题“{id}”在这次运行中没有唯一的正确答案（没有或有多个选项成立）：场景里的问题需要修改。",
    },
    "question_too_costly": {
        "en": "This question is too costly to answer: reaching second {seconds} of this run "
        "needs more than {events} simulation events or {cpu} s of the server's CPU. Ask about "
        "a nearer moment.",
        "zh": "这个问题的计算代价太高：运行到第 {seconds} 秒需要超过 {events} 个模拟事件或服务器 "
        "{cpu} 秒的 CPU 时间。请问一个更近的时刻。",
    },
    "quiz_in_class": {
        "en": "In a class, the teacher asks and reveals the questions.",
        "zh": "在课堂中，由老师提问并公布答案。",
    },
    "class_moved": {
        "en": "Class {class_code} is moving to another server process: reload the page in a "
        "moment to rejoin it.",
        "zh": "课堂 {class_code} 正在转到另一个服务器进程：请稍后刷新页面重新加入。",
    },
    "classes_rate_limited": {
        "en": "Too many new classes from this address: at most {limit} an hour.",
        "zh": "这个地址新建的课堂太多了：每小时最多 {limit} 个。",
    },
    "class_too_many_questions": {
        "en": "A class asks at most {limit} questions.",
        "zh": "一个课堂最多提 {limit} 个问题。",
    },
    "class_question_no_service": {
        "en": "This run has no Service, so no Pod is in a Service's endpoints: open a scenario "
        "with a Service (readiness-endpoints, for one) to ask this.",
        "zh": "这次运行没有 Service，所以没有 Pod 会在 Service 的端点里：请打开一个带 Service 的场景"
        "（例如 readiness-endpoints）再问这个问题。",
    },
    "class_question_no_pod": {
        "en": "The Pod is already gone: there is nothing to ask about it.",
        "zh": "Pod 已经不存在了：没有可以问的。",
    },
    "class_why_invalid": {
        "en": "A question has 1 to {limit} characters, and no control characters.",
        "zh": "问题需要 1 到 {limit} 个字符，且不能包含控制字符。",
    },
    "class_why_answer_invalid": {
        "en": "An answer has 1 to {limit} characters, and no control characters.",
        "zh": "回答需要 1 到 {limit} 个字符，且不能包含控制字符。",
    },
    "class_unknown_plan": {
        "en": 'There is no lesson plan "{name}".',
        "zh": "没有名为“{name}”的课程计划。",
    },
    "class_no_plan": {
        "en": "This class follows no lesson plan: choose one first.",
        "zh": "这个课堂没有使用课程计划：请先选择一个。",
    },
    "class_plan_done": {
        "en": "The lesson plan is done: all its {steps} steps are behind you.",
        "zh": "课程计划已完成：{steps} 个步骤都已经做完。",
    },
    "class_invalid": {
        "en": "The class cannot start: {problem}.",
        "zh": "无法开始课堂：{problem}。",
    },
}

PROBLEMS: dict[str, dict[str, str]] = {
    "bad_mode": {
        "en": '"mode" must be "follow" or "free"',
        "zh": "“mode” 必须是 “follow” 或 “free”",
    },
    "bad_choice": {"en": '"choice" is not one of the answers', "zh": "“choice” 不是其中一个答案"},
    "bad_question_kind": {
        "en": '"kind" must be one of {kinds}',
        "zh": "“kind” 必须是以下之一：{kinds}",
    },
    "bad_question": {
        "en": '"seconds" must be a number from 1 to 600',
        "zh": "“seconds” 必须是 1 到 600 之间的数字",
    },
}
